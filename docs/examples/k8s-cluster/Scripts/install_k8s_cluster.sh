#!/bin/bash
# install_k8s_cluster.sh: the cluster install script of the example Kubernetes cluster
# VNF, for VMs of heat-sim (SSH test hosts). Instead of kubeadm it runs kube-sim, the
# project's Kubernetes API simulator, on the first master, and registers every node as
# a Node object; the files it leaves are those a kubeadm-based script leaves. For real
# VMs, write a kubeadm script that keeps the same contract (arguments, files), which
# crates/tacker-mgmt/src/cluster/install.rs documents:
#
#   install_k8s_cluster.sh --role master|worker --node-name NAME --node-ip IP
#       --cluster-ip IP [--first-master] [--pod-cidr CIDR] [--cluster-cidr CIDR]
#
# The first master leaves /etc/kubernetes/tacker/join.env (what others join with),
# /etc/kubernetes/tacker/vim-token (the bearer token Tacker registers the VIM with),
# /etc/kubernetes/pki/ca.crt and /etc/kubernetes/admin.conf. Other nodes find
# join.env put there by Tacker. Proxy settings come as HTTP_PROXY, HTTPS_PROXY,
# NO_PROXY, K8S_NODE_CIDR. Running it again changes nothing.
set -euo pipefail
role= name= ip= cluster_ip= first= pod_cidr= cluster_cidr=
while [ $# -gt 0 ]; do
  case $1 in
    --role) role=$2; shift 2 ;;
    --node-name) name=$2; shift 2 ;;
    --node-ip) ip=$2; shift 2 ;;
    --cluster-ip) cluster_ip=$2; shift 2 ;;
    --first-master) first=1; shift ;;
    --pod-cidr) pod_cidr=$2; shift 2 ;;
    --cluster-cidr) cluster_cidr=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
: "${role:?--role}" "${name:?--node-name}" "${ip:?--node-ip}" "${cluster_ip:?--cluster-ip}"
K=/etc/kubernetes
mkdir -p "$K/tacker" "$K/pki"
# The cluster's own addresses never go through the proxy.
NO_PROXY="${NO_PROXY:+$NO_PROXY,}$cluster_ip,$ip,127.0.0.1,localhost"
export NO_PROXY no_proxy=$NO_PROXY
echo "$(date +%s) role=$role node=$name ip=$ip cluster=$cluster_ip first=${first:-no} pod_cidr=$pod_cidr cluster_cidr=$cluster_cidr proxy=${HTTP_PROXY:+set}" \
  >> /var/log/k8s-install.log

kubeconfig() {  # kubeconfig FILE TOKEN: the cluster's API with a bearer token
  umask 077
  cat > "$1" <<CONF
apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    server: https://$cluster_ip:6443
    certificate-authority: $K/pki/ca.crt
users:
- name: admin
  user:
    token: $2
contexts:
- name: admin
  context: {cluster: cluster, user: admin}
current-context: admin
CONF
}

if [ -n "$first" ]; then
  if [ ! -s "$K/tacker/vim-token" ]; then
    head -c 24 /dev/urandom | base64 | tr -d '/+=' > "$K/tacker/vim-token"
    chmod 600 "$K/tacker/vim-token"
  fi
  token=$(cat "$K/tacker/vim-token")
  if ! { [ -f /run/kube-sim.pid ] && kill -0 "$(cat /run/kube-sim.pid)" 2>/dev/null; }; then
    rm -f "$K/pki/ca.crt"
    KUBE_SIM_TOKEN=$token setsid nohup kube-sim --bind "$cluster_ip:6443" --nodes 0 \
      --tls-ca-out "$K/pki/ca.crt" > /var/log/kube-sim.log 2>&1 < /dev/null &
    echo $! > /run/kube-sim.pid
    for _ in $(seq 1 100); do [ -s "$K/pki/ca.crt" ] && break; sleep 0.1; done
    [ -s "$K/pki/ca.crt" ] || { echo "the API server did not start: $(tail -3 /var/log/kube-sim.log)" >&2; exit 1; }
  fi
  kubeconfig "$K/admin.conf" "$token"
  umask 077
  printf 'CLUSTER_IP=%s\nTOKEN=%s\nCA=%s\n' "$cluster_ip" "$token" "$(base64 -w0 "$K/pki/ca.crt")" > "$K/tacker/join.env"
else
  [ -s "$K/tacker/join.env" ] || { echo "no $K/tacker/join.env: nothing to join" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$K/tacker/join.env"
  echo "$CA" | base64 -d > "$K/pki/ca.crt"
  token=$TOKEN
  if [ "$role" = master ]; then kubeconfig "$K/admin.conf" "$token"; fi
fi
kubeconfig "$K/kubelet.conf" "$token"
labels="kubernetes.io/hostname: \"$name\""
[ "$role" = master ] && labels="$labels, node-role.kubernetes.io/control-plane: \"\""
for _ in $(seq 1 50); do
  if kubectl --kubeconfig "$K/kubelet.conf" apply --validate=false -f - >/dev/null 2>/tmp/node-apply.err <<NODE
apiVersion: v1
kind: Node
metadata:
  name: "$name"
  labels: {$labels}
spec:
  podCIDR: "${pod_cidr:-}"
status:
  addresses: [{type: InternalIP, address: "$ip"}]
  conditions: [{type: Ready, status: "True"}]
NODE
  then exit 0; fi
  sleep 0.2
done
echo "could not register node $name: $(cat /tmp/node-apply.err)" >&2
exit 1
