"""Seeds the tests' Keystone through its REST API (much faster than the openstack CLI):
project `service`, user `glance` with roles admin and service on it (keystonemiddleware
validates users' tokens with it), user `tacker` with role service only (what Tacker's
auth.mode = "keystone" validates callers' tokens with: the least Keystone needs), the
image service with Glance's endpoints.

usage: openstack-seed.py KEYSTONE_V3_URL ADMIN_PASSWORD GLANCE_URL
"""
import json
import sys
import urllib.error
import urllib.request

KS, ADMIN_PW, GLANCE = sys.argv[1], sys.argv[2], sys.argv[3]


def call(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Auth-Token"] = token
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(KS + path, method=method, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.headers, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read() or b"null")


status, headers, _ = call("POST", "/auth/tokens", {"auth": {
    "identity": {"methods": ["password"], "password": {"user": {
        "name": "admin", "domain": {"name": "Default"}, "password": ADMIN_PW}}},
    "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}}}})
if status != 201:
    sys.exit(f"admin login: HTTP {status}")
TOKEN = headers["X-Subject-Token"]


def find(kind, name):
    _, _, b = call("GET", f"/{kind}s?name={name}", token=TOKEN)
    items = b[kind + "s"]
    return items[0]["id"] if items else None


def ensure(kind, name, body):
    found = find(kind, name)
    if found:
        return found
    status, _, b = call("POST", f"/{kind}s", {kind: body}, token=TOKEN)
    if status != 201:
        sys.exit(f"creating {kind} {name}: HTTP {status} {b}")
    return b[kind]["id"]


project = ensure("project", "service", {"name": "service", "domain_id": "default"})
user = ensure("user", "glance", {"name": "glance", "password": "glance-password-for-tests",
                                 "domain_id": "default"})
for role in ["admin", "service"]:
    call("PUT", f"/projects/{project}/users/{user}/roles/{find('role', role)}", token=TOKEN)
tacker = ensure("user", "tacker", {"name": "tacker", "password": "tacker-password-for-tests",
                                  "domain_id": "default"})
call("PUT", f"/projects/{project}/users/{tacker}/roles/{find('role', 'service')}", token=TOKEN)
service = ensure("service", "glance", {"name": "glance", "type": "image"})
_, _, eps = call("GET", f"/endpoints?service_id={service}", token=TOKEN)
if not eps["endpoints"]:
    for interface in ["public", "internal", "admin"]:
        call("POST", "/endpoints", {"endpoint": {
            "service_id": service, "interface": interface, "url": GLANCE,
            "region_id": "RegionOne"}}, token=TOKEN)
print("seeded")
