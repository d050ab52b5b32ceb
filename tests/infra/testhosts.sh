#!/bin/bash
# testhosts.sh: SSH test hosts ("VMs") on this machine, for tests and heat-sim.
#
#   testhosts.sh bridge-up BRIDGE GATEWAY/PREFIX     a bridge with the gateway address
#   testhosts.sh bridge-down BRIDGE
#   testhosts.sh host-up NAME HOSTNAME BRIDGE IP/PREFIX [IP/PREFIX ...]
#   testhosts.sh host-down NAME
#   testhosts.sh addr-add NAME IP/PREFIX             a second address (floating IP)
#   testhosts.sh link NAME up|down                   the host's link (down: unreachable)
#   testhosts.sh list PREFIX                         hosts whose NAME starts with PREFIX
#
# A host: its own network namespace ti-NAME (veth tv-NAME on BRIDGE, no default route),
# UTS (HOSTNAME), PID namespace (sshd is PID 1: killing it ends everything started
# inside) and a private copy-on-write root: overlay (lower /, upper tmpfs) + chroot, so
# writes to /etc, /home, /var ... stay inside the host and vanish with it. Password and
# key login for TI_USER (passwordless sudo). Executables in TI_SHIMS (a directory) are
# put first on the host's PATH (/usr/local/bin), e.g. a `docker` that does the real thing
# with the tools this machine has. From outside, the host's files are at
# /proc/$(cat $TI_DIR/NAME.initpid)/root/... . NAME is at most 11 characters.
# Needs root, iproute2, util-linux, openssh-server.
set -euo pipefail
D=${TI_DIR:-/tmp/ti-hosts}
TUSER=${TI_USER:-tester}; TPASS=${TI_PASS:-testpass}

hostinit() {   # PID 1 in new mount+uts+pid namespaces, inside the host's netns
  local NAME=$1 HOSTNAME=$2 B=$D/$1 R=$D/$1/root
  mount -t tmpfs -o size=1g,mode=0755 "ti-$NAME" "$B"
  mkdir -p "$B/upper" "$B/work" "$R"
  mount -t overlay overlay -o lowerdir=/,upperdir="$B/upper",workdir="$B/work" "$R"
  mount --rbind /dev "$R/dev"
  mount -t proc proc "$R/proc"
  mount -t sysfs sysfs "$R/sys"
  mount -t tmpfs tmpfs "$R/run"; mkdir -p "$R/run/sshd" "$R/run/lock"; chmod 0755 "$R/run/sshd"
  # /tmp stays the overlay's (copy-on-write like the rest): a workspace under /tmp, whose
  # binaries the shims run, is then visible inside.
  hostname "$HOSTNAME"; echo "$HOSTNAME" > "$R/etc/hostname"
  echo "127.0.1.1 $HOSTNAME" >> "$R/etc/hosts"
  rm -f "$R"/etc/ssh/ssh_host_*
  chroot "$R" ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
  chroot "$R" id -u "$TUSER" >/dev/null 2>&1 || chroot "$R" useradd -m -s /bin/bash "$TUSER"
  echo "$TUSER:$TPASS" | chroot "$R" chpasswd
  mkdir -p "$R/etc/sudoers.d"
  echo "$TUSER ALL=(ALL) NOPASSWD:ALL" > "$R/etc/sudoers.d/ti-$TUSER"
  chmod 0440 "$R/etc/sudoers.d/ti-$TUSER"
  if [ -n "${TI_PUBKEY:-}" ]; then
    install -d -m 700 -o "$(chroot "$R" id -u "$TUSER")" "$R/home/$TUSER/.ssh"
    echo "$TI_PUBKEY" > "$R/home/$TUSER/.ssh/authorized_keys"
    chroot "$R" chown "$TUSER:" "/home/$TUSER/.ssh/authorized_keys"
  fi
  if [ -n "${TI_SHIMS:-}" ] && [ -d "$TI_SHIMS" ]; then
    mkdir -p "$R/usr/local/bin"
    for f in "$TI_SHIMS"/*; do [ -f "$f" ] && install -m 0755 "$f" "$R/usr/local/bin/"; done
  fi
  mkdir -p "$R/etc/ssh/sshd_config.d"
  printf 'PasswordAuthentication yes\nKbdInteractiveAuthentication no\nPermitRootLogin no\nUseDNS no\nPrintLastLog no\nPrintMotd no\nPidFile /run/sshd.pid\nMaxStartups 100\nMaxSessions 100\n' \
    > "$R/etc/ssh/sshd_config.d/ti.conf"
  exec chroot "$R" /usr/sbin/sshd -D -e
}

bridge_up() {
  local BR=$1 GW=$2
  ip link show "$BR" >/dev/null 2>&1 && ip link del "$BR"
  ip link add "$BR" type bridge
  ip addr add "$GW" dev "$BR"
  sysctl -qw "net.ipv6.conf.$BR.disable_ipv6=1" || true
  ip link set "$BR" up
}

host_up() {
  local n=$1 hn=$2 br=$3; shift 3
  [ ${#n} -le 11 ] || { echo "host name $n is longer than 11 characters" >&2; exit 2; }
  mkdir -p "$D/$n"
  ip netns add "ti-$n"
  ip link add "tv-$n" type veth peer name eth0 netns "ti-$n"
  ip link set "tv-$n" master "$br" up
  for a in "$@"; do
    ip -n "ti-$n" addr add "$a" dev eth0
    # An address a replaced host had: forget its old MAC here (no stale neighbour entry).
    ip neigh flush to "${a%%/*}" 2>/dev/null || true
  done
  ip -n "ti-$n" link set eth0 up
  ip -n "ti-$n" link set lo up
  setsid ip netns exec "ti-$n" unshare --mount --uts --pid --fork --propagation private \
    "$(readlink -f "$0")" __init "$n" "$hn" > "$D/$n.log" 2>&1 < /dev/null &
  echo $! > "$D/$n.pid"          # the PID of 'unshare' (ip netns exec execs it)
  local ip4=${1%%/*} ok=
  for _ in $(seq 1 200); do
    if ip netns exec "ti-$n" bash -c "exec 3<>/dev/tcp/$ip4/22" 2>/dev/null; then ok=1; break; fi
    sleep 0.05
  done
  [ -n "$ok" ] || { echo "host $n: sshd not up" >&2; cat "$D/$n.log" >&2; host_down "$n"; exit 1; }
  pgrep -P "$(cat "$D/$n.pid")" > "$D/$n.initpid"   # sshd = PID 1 of the host
}

host_down() {
  local n=$1 p st
  if [ -f "$D/$n.initpid" ]; then kill -KILL "$(cat "$D/$n.initpid")" 2>/dev/null || true; fi
  if [ -f "$D/$n.pid" ]; then
    p=$(cat "$D/$n.pid")   # ends once its child (the host's PID 1) is gone
    for _ in $(seq 1 50); do
      st=$(ps -o stat= -p "$p" 2>/dev/null || true); [ -z "$st" ] || [ "${st:0:1}" = Z ] && break
      sleep 0.05
    done
    kill -KILL "$p" 2>/dev/null || true
  fi
  rm -f "$D/$n.pid" "$D/$n.initpid" "$D/$n.log"
  ip link del "tv-$n" 2>/dev/null || true
  ip netns del "ti-$n" 2>/dev/null || true
  rmdir "$D/$n" 2>/dev/null || true
}

cmd=${1:?bridge-up|bridge-down|host-up|host-down|addr-add|link|list}; shift
case $cmd in
  bridge-up) bridge_up "$@" ;;
  bridge-down) ip link del "$1" 2>/dev/null || true ;;
  host-up) host_up "$@" ;;
  host-down) host_down "$1" ;;
  addr-add) ip -n "ti-$1" addr replace "$2" dev eth0; ip neigh flush to "${2%%/*}" 2>/dev/null || true ;;
  link) ip link set "tv-$1" "$2" ;;
  list) ip netns list | awk '{print $1}' | sed -n "s/^ti-\($1.*\)/\1/p" ;;
  __init) hostinit "$@" ;;
  *) exit 2 ;;
esac
