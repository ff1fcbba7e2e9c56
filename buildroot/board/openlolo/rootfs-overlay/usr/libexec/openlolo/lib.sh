# openlolo: helpers shared by the init scripts (sourced, not run).
# shellcheck shell=sh

# say MESSAGE: to the console and, once syslogd runs, to the log on /data
say() {
  echo "openlolo: $*" > /dev/console
  logger -t openlolo "$*" 2>/dev/null
}

# cmdline_has WORD: true when WORD is on the kernel command line
cmdline_has() {
  case " $(cat /proc/cmdline) " in *" $1 "*) return 0 ;; esac
  return 1
}

# cmdline_arg NAME: the value of NAME=value on the kernel command line
cmdline_arg() {
  echo " $(cat /proc/cmdline)" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"
}

# coldplug: load the module every present device asks for (by modalias)
coldplug() {
  find /sys/devices -name modalias -exec cat {} + 2>/dev/null | sort -u | while read -r a; do
    modprobe -q "$a" 2>/dev/null
  done
}

# board_serial: the board serial number from the device tree or /proc/cpuinfo, or nothing
board_serial() {
  s=
  [ -r /proc/device-tree/serial-number ] && s=$(tr -d '\0' < /proc/device-tree/serial-number)
  [ -n "$s" ] || s=$(sed -n 's/^Serial[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo)
  echo "$s" | tr 'A-F' 'a-f' | tr -cd '0-9a-f'
}

# box_id: 4 hex digits naming the box: the end of the board serial, else a
# random id made once and kept in /data/box-id
box_id() {
  s=$(board_serial)
  s=${s#"${s%????}"}
  case "$s" in
  ????) [ "$s" != 0000 ] && { echo "$s"; return; } ;;
  esac
  if [ ! -s /data/box-id ]; then
    hexdump -n 2 -e '1/2 "%04x"' /dev/urandom > /data/box-id.new && mv /data/box-id.new /data/box-id
  fi
  cat /data/box-id
}

# box_name: the box's name (its hostname, mDNS name and LAN certificate
# name): the one the owner gave it on the Settings page, which serve keeps
# in /data/openlolo/box-name, when that is a DNS label (1 to 63 lower-case
# letters, digits and inner hyphens, as serve checks); else openlolo-xxxx
# from box_id. supervise passes it to serve as --name, which wins there,
# so without this a rename on the page was lost at the next boot.
box_name() {
  n=$(cat /data/openlolo/box-name 2>/dev/null)
  case "$n" in
  '' | -* | *- | *[!a-z0-9-]*) ;;
  *) [ ${#n} -le 63 ] && { echo "$n"; return; } ;;
  esac
  echo "openlolo-$(box_id)"
}

# committed_slot: the root slot a plain boot takes: B when the boot
# partition's config.txt sets os_prefix=b/ (the updater writes it), else A
committed_slot() {
  if tr -d '\r' < /boot/config.txt 2>/dev/null | grep -qx 'os_prefix=b/'; then echo B; else echo A; fi
}

# trial_boot: true while this boot runs a new version that has not
# committed itself (it booted once, by tryboot, and config.txt still
# names the other slot)
trial_boot() {
  [ -f /boot/config.txt ] && [ "$(committed_slot)" != "${ROOT_SLOT:-A}" ]
}

# trial_failed WHY: a trial boot gives up: note why for the old slot's box
# page (update/trial.log on /data) and restart, which boots the committed
# slot
trial_failed() {
  say "trial boot of slot $ROOT_SLOT failed: $*; restarting into slot $(committed_slot)"
  mkdir -p /data/openlolo/update
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $*" >> /data/openlolo/update/trial.log
  sync
  reboot
}
