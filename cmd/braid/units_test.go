package main

import "testing"

func TestByteText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int64
		want string
	}{
		{-1, "?"}, {0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{3 << 20, "3.0 MiB"}, {106797808, "102 MiB"}, {5 << 40, "5.0 TiB"}, {1 << 62, "4.0 EiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := byteText(tt.n); got != tt.want {
				t.Errorf("byteText(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
	if got := sizeOrUnknown(-1); got != "unknown size" {
		t.Errorf("sizeOrUnknown(-1) = %q", got)
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"2000", 2000, true}, {"500K", 500 << 10, true},
		{"500k", 500 << 10, true}, {"10M", 10 << 20, true}, {"1.5M", 3 << 19, true},
		{"2G", 2 << 30, true}, {"1.5g", 3 << 29, true}, {"10MiB", 10 << 20, true},
		{"10MB/s", 10 << 20, true}, {"-1", 0, false}, {"-1M", 0, false}, {"fast", 0, false},
		{"k", 0, false}, {"NaN", 0, false}, {"nanM", 0, false}, {"Inf", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseRate(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("parseRate(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}
