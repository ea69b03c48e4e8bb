package platform

// privateDir relies on the per-user profile folder's access list on Windows.
func privateDir(string) error { return nil }

// checkPrivate relies on the per-user profile folder's access list on
// Windows.
func checkPrivate(string) error { return nil }
