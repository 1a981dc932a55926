package runner

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

const exeSuffix = ".exe"

var pythonNames = []string{"python3", "python"}

var extraUVPlaces []string

// hideWindow keeps a console window from flashing up for cmd.
func hideWindow(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW
	cmd.SysProcAttr.HideWindow = true
}

// tree is a started process inside a Job Object that kills every process in
// it when the job's handle closes. Until the sandbox launcher (which joins
// the job before starting Python) exists, the process is assigned right
// after it starts.
type tree struct {
	cmd        *exec.Cmd
	job        windows.Handle
	statusFile string // the sandbox launcher's report, when there is one
}

// stoppedBecause says why a watchdog ended the tree; Windows' job limits
// need no watchdog.
func (t *tree) stoppedBecause() string { return "" }

func startTree(cmd *exec.Cmd) (*tree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("set job limits: %w", err)
	}
	hideWindow(cmd)
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		windows.CloseHandle(h)
	}
	if err != nil {
		cmd.Process.Kill()
		windows.CloseHandle(job)
		return nil, fmt.Errorf("put python in its job: %w", err)
	}
	return &tree{cmd: cmd, job: job}, nil
}

// stop ends the job; Windows has no gentle signal for console-less children.
func (t *tree) stop(time.Duration, <-chan struct{}) { t.kill() }

func (t *tree) kill() { _ = windows.TerminateJobObject(t.job, 1) }

func (t *tree) release() { windows.CloseHandle(t.job) }

// homeEnv names the person's home for Python, plus what Windows' own
// libraries need to work at all.
func homeEnv(home string) []string {
	env := []string{"USERPROFILE=" + home}
	for _, k := range []string{"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "PATHEXT", "COMSPEC"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// failure reports why the sandbox launcher gave up, read from its status
// file once it has ended.
func (t *tree) failure() error {
	if t.statusFile == "" {
		return nil
	}
	return launcherFailure(t.statusFile)
}
