// A test-only module: go-ios (MIT) checks our CoreDevice protocol layers
// against an independent implementation, without the product linking it.
module github.com/openlolo/openlolo/hw/coredevice/interop

go 1.26.6

require (
	github.com/danielpaulus/go-ios v1.3.2
	github.com/google/uuid v1.6.0
	howett.net/plist v1.0.1
	github.com/openlolo/openlolo v0.0.0
	golang.org/x/net v0.62.0
)

require (
	github.com/Masterminds/semver v1.5.0 // indirect
	github.com/cenkalti/backoff v2.2.1+incompatible // indirect
	github.com/grandcat/zeroconf v1.0.0 // indirect
	github.com/miekg/dns v1.1.58 // indirect
	go.mozilla.org/pkcs7 v0.9.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	software.sslmate.com/src/go-pkcs12 v0.7.2 // indirect
)

replace github.com/openlolo/openlolo => ../../..
