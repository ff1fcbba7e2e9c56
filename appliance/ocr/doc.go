// Package ocr finds text on a phone screen: the words and lines an OCR
// engine reads from a frame, with their boxes in the frame's pixels.
//
// The engine is Tesseract, run as the `tesseract` program with the frame
// on stdin (PNG) and its TSV on stdout ([Tesseract]). It is not linked in
// through the C API: Debian's libleptonica-dev is not Multi-Arch: same, so
// the host's and the arm64 development files cannot be installed side by
// side (apt refuses libtesseract-dev:arm64 next to the host's), and
// libtesseract.a wants libarchive and libcurl with their own static
// dependency trees in a static binary. A program keeps the box's binary
// as it was and is what both images ship (Debian's tesseract-ocr and
// tesseract-ocr-eng; Buildroot's tesseract-ocr package).
//
// Where the program or its English data is missing, [Tesseract.Recognize]
// fails with an error that wraps [ErrNoEngine] and says what to install.
package ocr
