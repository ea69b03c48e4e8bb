package metalink

import "testing"

func TestNormalizeHash(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"sha-256", "sha-256", true},
		{"sha256", "sha-256", true},
		{"SHA256", "sha-256", true},
		{"SHA-256", "sha-256", true},
		{" sha_256 ", "sha-256", true},
		{"sha1", "sha-1", true},
		{"SHA1", "sha-1", true},
		{"sha-1", "sha-1", true},
		{"Sha-512", "sha-512", true},
		{"sha384", "sha-384", true},
		{"sha224", "sha-224", true},
		{"md5", "md5", true},
		{"MD5", "md5", true},
		{"md4", "md4", true},
		{"tiger", "tiger", false},
		{"RMD160", "rmd160", false},
		{"crc32", "crc32", false},
		{" BTIH ", "btih", false},
		{"sha3-256", "sha3-256", false},
		{"", "", false},
		{"sha-256-but-much-longer-than-any-hash-name", "sha-256-but-much-longer-than-any-hash-name", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizeHash(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("NormalizeHash(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCleanHexAndValidHex(t *testing.T) {
	tests := []struct {
		typ, in, clean string
		valid          bool
	}{
		{"md5", "098F6BCD4621D373CADE4E832627B4F6", "098f6bcd4621d373cade4e832627b4f6", true},
		{"md5", "\n  098f6bcd4621d373\n  cade4e832627b4f6\n", "098f6bcd4621d373cade4e832627b4f6", true},
		{"md5", "098f6bcd4621d373cade4e832627b4f", "098f6bcd4621d373cade4e832627b4f", false},
		{"sha-1", "example-sha1-hash", "example-sha1-hash", false},
		{"tiger", "ABCDEF", "abcdef", true},
		{"tiger", "xyz", "xyz", false},
		{"tiger", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.in, func(t *testing.T) {
			got := cleanHex(tt.in)
			if got != tt.clean {
				t.Errorf("cleanHex(%q) = %q, want %q", tt.in, got, tt.clean)
			}
			if v := validHex(tt.typ, got); v != tt.valid {
				t.Errorf("validHex(%q, %q) = %v, want %v", tt.typ, got, v, tt.valid)
			}
		})
	}
}
