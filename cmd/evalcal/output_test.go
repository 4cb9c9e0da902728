package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOutputFormatResolution(t *testing.T) {
	for _, tt := range []struct {
		path, format string
		given        bool
		allowed      []string
		want         string // "" means a usage error
	}{
		{"r.yaml", "yaml", false, reportFormats, "yaml"},
		{"r.YML", "yaml", false, reportFormats, "yaml"},
		{"r.json", "yaml", false, reportFormats, "json"},
		{"r.md", "yaml", false, reportFormats, "markdown"},
		{"r.html", "yaml", false, reportFormats, "html"},
		{"r.txt", "yaml", false, reportFormats, "yaml"},
		{"r", "json", true, reportFormats, "json"},
		{"", "html", true, reportFormats, "html"},
		{"-", "yaml", false, reportFormats, "yaml"},
		{"r.md", "md", true, reportFormats, "md"},
		{"r.md", "markdown", true, reportFormats, "markdown"},
		{"r.yaml", "json", true, reportFormats, ""},
		{"r.md", "yaml", false, gateFormats, ""},
		{"r.json", "yaml", false, gateFormats, "json"},
		{"r", "xml", true, reportFormats, ""},
		{"r.html", "markdown", false, renderOutputFormats, "html"},
	} {
		o := outputOptions{Path: tt.path, Format: tt.format, formatGiven: tt.given}
		err := o.resolve("x", tt.allowed...)
		switch {
		case tt.want == "" && exitCode(err) != exitUsage:
			t.Errorf("%+v: err %v, want a usage error", tt, err)
		case tt.want != "" && (err != nil || o.Format != tt.want):
			t.Errorf("%+v: format %q, err %v; want %q", tt, o.Format, err, tt.want)
		}
	}
}

func TestOutputCheckLeavesNoProbeAndRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := outputOptions{Path: filepath.Join(dir, "out.yaml")}
	if err := o.check("x", &bytes.Buffer{}, in, "-", ""); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the probe was left behind: %d entries", len(entries))
	}
	o.Path = filepath.Join(dir, "sub", "..", "in.jsonl")
	if err := o.check("x", &bytes.Buffer{}, in); exitCode(err) != exitUsage {
		t.Errorf("-o naming the input: %v", err)
	}
	o.Path = ""
	if err := o.check("x", closedWriter{}); !errors.Is(err, errStdoutClosed) || exitCode(err) != exitFailed {
		t.Errorf("closed stdout: %v (exit %d), want errStdoutClosed and exit 1", err, exitCode(err))
	}
	if err := o.write(closedWriter{}, []byte("doc")); !errors.Is(err, errStdoutClosed) {
		t.Errorf("write to a closed stdout: %v", err)
	}
}
