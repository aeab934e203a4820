package jsonschema

import (
	"net/mail"
	"testing"
)

// TestIsEmailAgreesWithNetMail: picket's copy checks an email's local
// part itself instead of through net/mail; on these addresses the two
// agree, as they must for the email format to mean what upstream's does.
func TestIsEmailAgreesWithNetMail(t *testing.T) {
	for _, s := range []string{
		"joe@example.com", "joe.bloggs@example.com", "a+b@example.com", "!#$%&'*+-/=?^_`{|}~@example.com",
		`"joe bloggs"@example.com`, `"a\"b"@example.com`, "üser@example.com",
		".joe@example.com", "joe.@example.com", "jo..e@example.com", "jo e@example.com", "jo(e@example.com",
		"jo,e@example.com", `"unterminated@example.com`, "jo\x00e@example.com", "a;b@example.com",
	} {
		_, err := mail.ParseAddress(s)
		if got, want := isEmail(s), err == nil; got != want {
			t.Errorf("isEmail(%q) = %v, net/mail says %v (%v)", s, got, want, err)
		}
	}
}
