package queue

import "braid/engine/redact"

// Redact returns s with the credentials (user:password@) of every URL in
// it removed, for anything shown to the user or kept where it is shown: a
// job's source and error. A URL the engine fetches keeps its credentials;
// they are stored with the job's mirrors, never displayed. Safe for
// concurrent use. It is redact.Text, Braid's one redaction.
func Redact(s string) string { return redact.Text(s) }
