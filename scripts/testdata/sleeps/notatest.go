package sleeps

import "time"

// Tick is product code: its sleeps are not the tests'.
func Tick() { time.Sleep(time.Second) }
