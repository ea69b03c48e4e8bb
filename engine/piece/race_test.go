//go:build race

package piece

const raceEnabled = true
