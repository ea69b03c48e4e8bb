package queue

// Signature is what checking the signature of a job's file found, as the
// queue stores it: the fields of the engine's signature.Outcome, its
// Status by name ("good", "unknown-key", "bad", "unreadable";
// "unchecked" or "" when nothing was checked). The queue only keeps it;
// the runner checks signatures and turns this record back into an
// Outcome (runner.Outcome). Its JSON is the Outcome's, so the rows
// written before the queue had its own type read the same.
type Signature struct {
	Status      string
	Fingerprint string
	Signer      string
	Note        string
}

// KeysDir is the folder that holds the user's trusted keys for the queue
// in state folder dir (q.Path's folder): the system's settings folder when
// dir is the default state folder (on Windows the keys roam with the user
// in %APPDATA%\Braid while the queue stays on the machine), else dir
// itself, so a state folder given with --state or BRAID_STATE holds
// everything of its own. The runner opens the keyring there
// (runner.Keyring).
func KeysDir(dir string) string {
	state, keys, err := defaultDirs()
	if err != nil || !samePath(dir, state) {
		return dir
	}
	return keys
}
