// Package gpio runs the box's physical controls through periph.io: the
// button (default GPIO17, pull-up, active low, debounced) and the status
// LED (default GPIO27).
//
// A short press of the button is proof of presence: it confirms an owner
// claim that waits for one. Holding it starts a factory reset after 10 s;
// the LED warns from 5 s, and letting go before 10 s cancels. The events
// arrive on [Panel.Events]; the appliance decides what they do.
//
// The LED shows the box's state: off while booting, a slow blink while
// unclaimed or waiting for the owner's approval, on when ready, a fast
// blink on error ([LED]).
//
// A machine without GPIO (a dev machine) is not an error: [Open] returns
// a Panel whose Available reports false and whose methods do nothing.
package gpio
