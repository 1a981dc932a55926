package ui

/*
#cgo CFLAGS: -x objective-c
#cgo LDFLAGS: -framework Cocoa
#import <Cocoa/Cocoa.h>

// A tray app: no Dock icon, and its windows can still come to the front.
static void pygateAccessory(void) {
	[NSApp setActivationPolicy:NSApplicationActivationPolicyAccessory];
	[NSApp activateIgnoringOtherApps:YES];
}
*/
import "C"

// accessoryMode switches the app to accessory mode after GLFW reset the
// activation policy at launch.
func accessoryMode() { C.pygateAccessory() }
