package metalink

// fileField reads a descriptive child of <file> that both versions define
// alike (identity, version, description, copyright, logo, language, os,
// publisher), into fb: a file's builder, or Metalink 3's document-level one,
// whose values files inherit. ok is false for any other element, which the
// caller handles.
func (p *docParser) fileField(fb *fileBuilder) (ok bool, err error) {
	f := &fb.f
	switch string(p.s.local) {
	case "identity":
		return true, p.setText(fb, &f.Identity, hasIdentity)
	case "version":
		return true, p.setText(fb, &f.Version, hasVersion)
	case "description":
		return true, p.setText(fb, &f.Description, hasDescription)
	case "copyright":
		return true, p.setText(fb, &f.Copyright, hasCopyright)
	case "logo":
		return true, p.setText(fb, &f.Logo, hasLogo)
	case "language":
		return true, p.addText(fb, &f.Languages, hasLanguage)
	case "os":
		return true, p.addText(fb, &f.OS, hasOS)
	case "publisher":
		return true, p.setParty(fb, &f.Publisher, hasPublisher)
	}
	return false, nil
}
