package patch_test

import (
	"fmt"

	"github.com/picketdev/picket/hook/patch"
)

func ExampleParse() {
	ts, err := patch.Parse("*** Begin Patch\n*** Update File: src/a.go\n*** Move to: src/b.go\n@@\n-old\n+new\n*** Delete File: notes.txt\n*** End Patch\n")
	if err != nil {
		fmt.Println("deny:", err)
		return
	}
	for _, t := range ts {
		fmt.Println(t.Op, t.Path)
	}
	_, err = patch.Parse("*** Begin Patch\n*** Update File: a\n*** End Patch")
	fmt.Println("deny:", err)
	// Output:
	// move-from src/a.go
	// move-to src/b.go
	// delete notes.txt
	// deny: line 2: the update of "a" has no change
}
