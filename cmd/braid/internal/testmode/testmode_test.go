package testmode

import (
	"strings"
	"testing"

	"braid/ui"
)

func TestAutoAddFromEnv(t *testing.T) {
	tests := []struct {
		value   string
		want    bool
		wantErr bool
	}{
		{"", false, false},
		{"1", true, false},
		{"true", true, false},
		{"0", false, false},
		{"yes", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := autoAddFromEnv(func(k string) string {
				if k == "BRAID_AUTOADD" {
					return tt.value
				}
				return ""
			})
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("BRAID_AUTOADD=%q: got %v, %v; want %v, error %v", tt.value, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// Each mode reads its variables; a bad value is an error naming the
// variable, and nothing set is no mode at all.
func TestFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	m, err := FromEnv(env())
	if err != nil {
		t.Fatal(err)
	}
	var o ui.Options
	m.Options(&o)
	if o.AutoStart || m.dump != "" || m.StartQueue() {
		t.Errorf("no variables: options %+v, start queue %v; want no mode", o, m.StartQueue())
	}
	if took, err := m.Run(t.Context(), nil); took || err != nil {
		t.Errorf("no variables: Run = %v, %v; want nothing done", took, err)
	}

	m, err = FromEnv(env("BRAID_SCREENSHOT", "out.png", "BRAID_SCREENSHOT_AFTER", "5s", "BRAID_DUMP_TEXTS", "dump"))
	if err != nil {
		t.Fatal(err)
	}
	o = ui.Options{}
	m.Options(&o)
	if !o.AutoStart || m.dump != "dump" || !m.StartQueue() || m.shot.after.String() != "5s" || m.shot.timeout.String() != "2m0s" {
		t.Errorf("screenshot and dump: options %+v, start queue %v, shot %+v", o, m.StartQueue(), m.shot)
	}

	for _, kv := range [][2]string{{"BRAID_SCREENSHOT_AFTER", "soon"}, {"BRAID_SCREENSHOT_TIMEOUT", "-1s"}, {"BRAID_AUTOADD", "yes"}} {
		if _, err := FromEnv(env(kv[0], kv[1])); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: error %v, want one naming the variable", kv[0], kv[1], err)
		}
	}
}
