package hid

// Usage pages that the box's descriptors use.
const (
	PageGenericDesktop uint16 = 0x01
	PageKeyboard       uint16 = 0x07
	PageLED            uint16 = 0x08
	PageButton         uint16 = 0x09
	PageConsumer       uint16 = 0x0c
	PageDigitizer      uint16 = 0x0d
)

// Generic Desktop usages.
const (
	UsagePointer  uint16 = 0x01
	UsageMouse    uint16 = 0x02
	UsageKeyboard uint16 = 0x06
	UsageX        uint16 = 0x30
	UsageY        uint16 = 0x31
	UsageWheel    uint16 = 0x38
)

// Digitizer usages.
const (
	UsageTouchScreen         uint16 = 0x04
	UsageFinger              uint16 = 0x22
	UsageInRange             uint16 = 0x32
	UsageTipSwitch           uint16 = 0x42
	UsageContactID           uint16 = 0x51
	UsageContactCount        uint16 = 0x54
	UsageContactCountMaximum uint16 = 0x55
)

// Consumer page usages the box sends (Linux and Android key names in
// parentheses).
const (
	ConsumerNone       uint16 = 0x000
	ConsumerPower      uint16 = 0x030 // KEY_POWER: lock / wake
	ConsumerMute       uint16 = 0x0e2 // KEY_MUTE
	ConsumerVolumeUp   uint16 = 0x0e9 // KEY_VOLUMEUP
	ConsumerVolumeDown uint16 = 0x0ea // KEY_VOLUMEDOWN
	ConsumerSearch     uint16 = 0x221 // AC Search: KEY_SEARCH
	ConsumerHome       uint16 = 0x223 // AC Home: KEY_HOMEPAGE, Android HOME
	ConsumerBack       uint16 = 0x224 // AC Back: KEY_BACK, Android BACK
	ConsumerAppSwitch  uint16 = 0x29f // Android APP_SWITCH (Generic.kl)
)

// MaxConsumer is the largest consumer usage the consumer function carries.
const MaxConsumer uint16 = 0x3ff
