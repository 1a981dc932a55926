package runner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// statusPipe is the status file named in the spec, on Windows, which has
// no inherited descriptors beyond the standard three.
func statusPipe(spec SandboxSpec) *os.File {
	if spec.StatusFile == "" {
		return nil
	}
	f, err := os.OpenFile(spec.StatusFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return f
}

// enterSandbox puts this process in a Job Object with the run's limits,
// labels the writable folders low-integrity, and runs Python as a child in
// the job with a low-integrity token. Windows has no exec, so the launcher
// waits for Python and exits with its code; it returns only on failure.
func enterSandbox(spec SandboxSpec, enforced func(string)) error {
	settings := JobFor(spec)
	job, err := createJob(settings)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSandboxUnavailable, err)
	}
	// Join the job before Python exists, so no grandchild can escape it.
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		return fmt.Errorf("%w: join the job: %v", ErrSandboxUnavailable, err)
	}
	for _, dir := range settings.LowIntegrityDirs {
		if err := labelLowIntegrity(dir); err != nil {
			return fmt.Errorf("%w: let Python write to %s: %v", ErrSandboxUnavailable, dir, err)
		}
	}
	token, err := lowIntegrityToken()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSandboxUnavailable, err)
	}
	defer token.Close()

	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Token:         syscall.Token(token),
		CreationFlags: windows.CREATE_NO_WINDOW,
		HideWindow:    true,
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start Python: %w", err)
	}
	enforced(WindowsEnforced(settings, spec.Network))
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return fmt.Errorf("wait for Python: %w", err)
	}
	os.Exit(cmd.ProcessState.ExitCode())
	return nil
}

func createJob(s JobSettings) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create a job: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	flags := uint32(0)
	if s.KillOnJobClose {
		flags |= windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	}
	if s.DieOnUnhandled {
		flags |= windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	}
	if s.JobMemoryBytes > 0 {
		flags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(s.JobMemoryBytes)
	}
	if s.ActiveProcesses > 0 {
		flags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = s.ActiveProcesses
	}
	info.BasicLimitInformation.LimitFlags = flags
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set the job's limits: %w", err)
	}
	if s.UIRestrictions {
		ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: windows.JOB_OBJECT_UILIMIT_DESKTOP |
			windows.JOB_OBJECT_UILIMIT_GLOBALATOMS | windows.JOB_OBJECT_UILIMIT_HANDLES | windows.JOB_OBJECT_UILIMIT_READCLIPBOARD |
			windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD | windows.JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS | windows.JOB_OBJECT_UILIMIT_EXITWINDOWS}
		if _, err := windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
			uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui))); err != nil {
			windows.CloseHandle(job)
			return 0, fmt.Errorf("set the job's UI limits: %w", err)
		}
	}
	return job, nil
}

// labelLowIntegrity gives dir (and what is created in it) a low mandatory
// label, so a low-integrity Python can write there. The owner may do this
// without administrator rights.
func labelLowIntegrity(dir string) error {
	sd, err := windows.SecurityDescriptorFromString("S:(ML;OICI;NW;;;LW)")
	if err != nil {
		return err
	}
	sacl, _, err := sd.SACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.LABEL_SECURITY_INFORMATION, nil, nil, nil, sacl)
}

// lowIntegrityToken is this process's token at low integrity: it can read
// what the person can, and write only where labelled low.
func lowIntegrityToken() (windows.Token, error) {
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_DUPLICATE|windows.TOKEN_ADJUST_DEFAULT|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY, &cur); err != nil {
		return 0, fmt.Errorf("open own token: %w", err)
	}
	defer cur.Close()
	var low windows.Token
	if err := windows.DuplicateTokenEx(cur, 0, nil, windows.SecurityImpersonation, windows.TokenPrimary, &low); err != nil {
		return 0, fmt.Errorf("copy own token: %w", err)
	}
	sid, err := windows.CreateWellKnownSid(windows.WinLowLabelSid)
	if err != nil {
		low.Close()
		return 0, fmt.Errorf("low integrity SID: %w", err)
	}
	tml := windows.Tokenmandatorylabel{Label: windows.SIDAndAttributes{Sid: sid, Attributes: windows.SE_GROUP_INTEGRITY}}
	if err := windows.SetTokenInformation(low, windows.TokenIntegrityLevel,
		(*byte)(unsafe.Pointer(&tml)), uint32(unsafe.Sizeof(tml))+windows.GetLengthSid(sid)); err != nil {
		low.Close()
		return 0, fmt.Errorf("lower the token's integrity: %w", err)
	}
	return low, nil
}
