package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pygate/pygate/approval"
	"github.com/pygate/pygate/runner"
)

// SettingsVersion is the schema version this PyGate writes.
const SettingsVersion = 1

// DefaultAllowedImports is the strict level's import allow-list.
var DefaultAllowedImports = []string{
	"collections", "datetime", "itertools", "math", "queue", "random", "re", "stat", "statistics", "time",
	"unicodedata", "json", "string", "functools", "operator", "decimal", "fractions", "heapq", "bisect",
	"typing", "dataclasses", "enum", "copy", "textwrap",
}

// Settings are PyGate's settings (settings.json). Keys PyGate does not know
// are kept as they were.
type Settings struct {
	Version                int             `json:"version"`
	Approval               approval.Policy `json:"approval"`
	Sandbox                runner.Level    `json:"sandbox"`
	TimeoutSeconds         int             `json:"timeout_seconds"`
	MaxTimeoutSeconds      int             `json:"max_timeout_seconds"`
	MemoryMB               int             `json:"memory_mb"`
	AnswerWithinSeconds    int             `json:"answer_within_seconds"`
	ApprovalTimeoutSeconds int             `json:"approval_timeout_seconds"`
	PythonVersion          string          `json:"python_version"`
	AllowedImports         []string        `json:"allowed_imports"`
	JournalRetentionDays   int             `json:"journal_retention_days"`
	UVDownloadBaseURL      string          `json:"uv_download_base_url"`

	unknown map[string]json.RawMessage
}

// DefaultSettings returns the settings PyGate uses when nothing is set.
func DefaultSettings() Settings {
	return Settings{
		Version:                SettingsVersion,
		Approval:               approval.Ask,
		Sandbox:                runner.Standard,
		TimeoutSeconds:         60,
		MaxTimeoutSeconds:      600,
		MemoryMB:               2048,
		AnswerWithinSeconds:    45,
		ApprovalTimeoutSeconds: 600,
		PythonVersion:          "3.12",
		AllowedImports:         slices.Clone(DefaultAllowedImports),
		JournalRetentionDays:   90,
		UVDownloadBaseURL:      "https://github.com/astral-sh/uv/releases/download/",
	}
}

// Loaded is the result of reading settings.json: the settings in force and,
// when the file had problems, plain sentences saying what PyGate did about
// them. Broken means the file could not be read as settings at all, so
// PyGate will not write over it.
type Loaded struct {
	Settings Settings
	Problems []string
	Broken   bool
}

// LoadSettings reads path. A missing file gives the defaults. A file that
// does not parse gives the defaults, Broken, and a problem that says where
// it breaks. A value that is not allowed falls back to its default, with a
// problem naming the key and the allowed values.
func LoadSettings(path string) Loaded {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Loaded{Settings: DefaultSettings()}
	}
	if err != nil {
		return Loaded{Settings: DefaultSettings(), Broken: true, Problems: []string{
			fmt.Sprintf("PyGate could not read %s (%v), so it is using its default settings.", path, err)}}
	}
	return parseSettings(path, data)
}

func parseSettings(path string, data []byte) Loaded {
	broken := func(why string) Loaded {
		return Loaded{Settings: DefaultSettings(), Broken: true, Problems: []string{
			fmt.Sprintf("%s is not valid: %s. PyGate is using its default settings and has left the file as it is; fix it or delete it to start afresh.", path, why)}}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return broken(describeJSONError(data, err))
	}
	if raw == nil {
		return broken("it must hold a JSON object such as {\"approval\": \"ask\"}")
	}
	s := DefaultSettings()
	s.unknown = map[string]json.RawMessage{}
	var problems []string
	if v, ok := raw["version"]; ok {
		var n int
		if json.Unmarshal(v, &n) != nil || n < 0 {
			problems = append(problems, "\"version\" in settings.json must be a whole number; PyGate treats the file as version 1.")
		} else if n > SettingsVersion {
			return broken(fmt.Sprintf("it was written by a newer PyGate (settings version %d; this PyGate knows version %d)", n, SettingsVersion))
		}
	}
	for key, v := range raw {
		f, known := settingFields[key]
		if !known {
			s.unknown[key] = v
			continue
		}
		if p := f.set(&s, v); p != "" {
			problems = append(problems, fmt.Sprintf("%q in settings.json %s; PyGate uses %s until this is fixed.", key, p, f.def()))
		}
	}
	s.Version = SettingsVersion // migrations from older versions go here
	if s.TimeoutSeconds > s.MaxTimeoutSeconds {
		problems = append(problems, fmt.Sprintf("\"timeout_seconds\" (%d) is more than \"max_timeout_seconds\" (%d); PyGate uses %d.", s.TimeoutSeconds, s.MaxTimeoutSeconds, s.MaxTimeoutSeconds))
		s.TimeoutSeconds = s.MaxTimeoutSeconds
	}
	slices.Sort(problems)
	return Loaded{Settings: s, Problems: problems}
}

func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset-1) // Offset counts the offending byte
		return fmt.Sprintf("line %d, column %d: %s", line, col, syn.Error())
	case errors.As(err, &typ):
		return "it must hold a JSON object such as {\"approval\": \"ask\"}"
	}
	return err.Error()
}

func position(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	if col < 1 {
		col = 1
	}
	return line, col
}

// field knows how to read, check and describe one setting.
type field struct {
	set func(s *Settings, v json.RawMessage) string // "" when accepted
	def func() string
}

func intField(get func(*Settings) *int, lo, hi int) field {
	return field{
		set: func(s *Settings, v json.RawMessage) string {
			var n float64
			if json.Unmarshal(v, &n) != nil || n != float64(int(n)) {
				return fmt.Sprintf("must be a whole number from %d to %d", lo, hi)
			}
			if int(n) < lo || int(n) > hi {
				return fmt.Sprintf("is %d; it must be from %d to %d", int(n), lo, hi)
			}
			*get(s) = int(n)
			return ""
		},
		def: func() string { d := DefaultSettings(); return fmt.Sprint(*get(&d)) },
	}
}

func choiceField[T ~string](get func(*Settings) *T, allowed []T) field {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return field{
		set: func(s *Settings, v json.RawMessage) string {
			var str string
			if json.Unmarshal(v, &str) != nil || !slices.Contains(names, str) {
				return fmt.Sprintf("is %s; the allowed values are %s", string(v), strings.Join(names, ", "))
			}
			*get(s) = T(str)
			return ""
		},
		def: func() string { d := DefaultSettings(); return fmt.Sprintf("%q", *get(&d)) },
	}
}

var (
	pythonVersionRe = regexp.MustCompile(`^3\.\d{1,2}(\.\d{1,2})?$`)
	moduleRe        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

var settingFields = map[string]field{
	"version":                  {set: func(*Settings, json.RawMessage) string { return "" }, def: func() string { return "1" }},
	"approval":                 choiceField(func(s *Settings) *approval.Policy { return &s.Approval }, approval.Policies),
	"sandbox":                  choiceField(func(s *Settings) *runner.Level { return &s.Sandbox }, runner.Levels),
	"timeout_seconds":          intField(func(s *Settings) *int { return &s.TimeoutSeconds }, 1, 86400),
	"max_timeout_seconds":      intField(func(s *Settings) *int { return &s.MaxTimeoutSeconds }, 1, 86400),
	"memory_mb":                intField(func(s *Settings) *int { return &s.MemoryMB }, 128, 1<<20),
	"answer_within_seconds":    intField(func(s *Settings) *int { return &s.AnswerWithinSeconds }, 1, 300),
	"approval_timeout_seconds": intField(func(s *Settings) *int { return &s.ApprovalTimeoutSeconds }, 10, 86400),
	"journal_retention_days":   intField(func(s *Settings) *int { return &s.JournalRetentionDays }, 1, 3650),
	"python_version": {
		set: func(s *Settings, v json.RawMessage) string {
			var str string
			if json.Unmarshal(v, &str) != nil || !pythonVersionRe.MatchString(str) {
				return fmt.Sprintf("is %s; it must be a Python 3 version such as \"3.12\"", string(v))
			}
			s.PythonVersion = str
			return ""
		},
		def: func() string { return fmt.Sprintf("%q", DefaultSettings().PythonVersion) },
	},
	"allowed_imports": {
		set: func(s *Settings, v json.RawMessage) string {
			var list []string
			if json.Unmarshal(v, &list) != nil || list == nil {
				return "must be a list of module names such as [\"math\", \"json\"]"
			}
			for _, m := range list {
				if !moduleRe.MatchString(m) {
					return fmt.Sprintf("has %q, which is not a top-level module name", m)
				}
			}
			s.AllowedImports = list
			return ""
		},
		def: func() string { return "the built-in list" },
	},
	"uv_download_base_url": {
		set: func(s *Settings, v json.RawMessage) string {
			var str string
			if json.Unmarshal(v, &str) != nil {
				return "must be a web address such as \"https://example.org/uv/\""
			}
			u, err := url.Parse(str)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Sprintf("is %q; it must be an http or https web address", str)
			}
			s.UVDownloadBaseURL = str
			return ""
		},
		def: func() string { return fmt.Sprintf("%q", DefaultSettings().UVDownloadBaseURL) },
	},
}

// ErrBrokenSettings is returned by ModifySettings when the file on disk is
// not valid settings: PyGate never writes over it.
var ErrBrokenSettings = errors.New("settings file is not valid")

// ModifySettings applies fn to the settings in path and writes them back
// atomically, keeping keys PyGate does not know. It refuses to touch a file
// that does not parse.
func ModifySettings(path string, fn func(*Settings)) error {
	l := LoadSettings(path)
	if l.Broken {
		return fmt.Errorf("%w: %s", ErrBrokenSettings, strings.Join(l.Problems, " "))
	}
	s := l.Settings
	fn(&s)
	out := map[string]any{}
	for k, v := range s.unknown {
		out[k] = v
	}
	known, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	var knownMap map[string]json.RawMessage
	_ = json.Unmarshal(known, &knownMap)
	for k, v := range knownMap {
		out[k] = v
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	if check := parseSettings(path, data); len(check.Problems) > 0 {
		return fmt.Errorf("refusing to write settings: %s", strings.Join(check.Problems, " "))
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// WriteFileAtomic writes data to a temporary file in path's folder, syncs
// it, and renames it over path, so readers see the old or the new file,
// never half of one.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create folder: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write temp file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return fmt.Errorf("set permissions: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", filepath.Base(path), err)
	}
	return nil
}
