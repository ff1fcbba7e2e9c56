// Package scripts holds the tree's shell scripts (make test, the QEMU
// suites, the SD image) and, in its tests, checks that read the whole
// source tree: sleeps_test.go keeps real waits out of the tests.
package scripts
