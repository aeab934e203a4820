//go:build !race

package decide

const raceOn = false
