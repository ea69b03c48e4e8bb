//go:build !race

package piece

const raceEnabled = false
