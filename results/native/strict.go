package native

// CheckJSON applies the results reader's strict rule to one JSON document:
// a duplicate key in any object (keys compared after unescaping) is refused,
// as is nesting deeper than the reader allows and text after the value. It
// returns nil for a document the reader would take. The judge applies it
// to a judge's answer, so that an answer the results could not carry is
// never read as a value.
func CheckJSON(b []byte) error {
	var s scanner
	s.reset(b)
	if _, _, _, err := s.value(0); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return s.errf("unexpected text after the JSON value, found %s", s.describe())
	}
	return nil
}
