//go:build race

package decide

// raceOn scales the randomized tests down under the race detector, which
// runs them ten times slower; the plain run covers their full size.
const raceOn = true
