"""Shared by the LCM benchmarks: calls to the API, running a task to its end, and a
phase that runs `one(k)` for k in 1..count with `conc` threads, then prints per
operation the control overhead (the occurrence's startTime -> COMPLETED as the server
records it) p50/p99 and operations per minute."""
import json
import threading
import time
import urllib.request
from datetime import datetime


class Api:
    def __init__(self, base):
        self.base = base
        self.lcm = f"{base}/vnflcm/v2"
        self.durations = {}
        self.failures = []
        self.lock = threading.Lock()

    def call(self, method, url, body=None, ctype="application/json", lcm=False):
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        r = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            r.add_header("Content-Type", ctype)
        if lcm:
            r.add_header("Version", "2.0.0")
        with urllib.request.urlopen(r, timeout=120) as resp:
            text = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, (json.loads(text) if text else None)

    def onboard(self, path):
        _, _, p = self.call("POST", f"{self.base}/vnfpkgm/v1/vnf_packages", {})
        self.call("PUT", f"{self.base}/vnfpkgm/v1/vnf_packages/{p['id']}/package_content",
                  open(path, "rb").read(), "application/zip")
        while self.call("GET", f"{self.base}/vnfpkgm/v1/vnf_packages/{p['id']}")[2]["onboardingState"] != "ONBOARDED":
            time.sleep(0.05)

    def create(self, vnfd):
        return self.call("POST", f"{self.lcm}/vnf_instances", {"vnfdId": vnfd}, lcm=True)[2]["id"]

    def instance(self, i):
        return self.call("GET", f"{self.lcm}/vnf_instances/{i}", lcm=True)[2]

    def delete(self, i):
        self.call("DELETE", f"{self.lcm}/vnf_instances/{i}", lcm=True)

    def task(self, i, path, body, label=None):
        _, h, _ = self.call("POST", f"{self.lcm}/vnf_instances/{i}/{path}", body, lcm=True)
        op = h["location"].rsplit("/", 1)[1]
        while True:
            o = self.call("GET", f"{self.lcm}/vnf_lcm_op_occs/{op}", lcm=True)[2]
            if o["operationState"] in ("COMPLETED", "FAILED_TEMP"):
                break
            time.sleep(0.02)
        with self.lock:
            if o["operationState"] == "COMPLETED":
                ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
                self.durations.setdefault(label or o["operation"], []).append(
                    ts(o["stateEnteredTime"]) - ts(o["startTime"]))
            else:
                self.failures.append(o.get("error"))
        return o

    def phase(self, label, count, conc, one, who):
        self.durations.clear()
        self.failures.clear()
        todo = list(range(1, count + 1))

        def worker():
            while True:
                with self.lock:
                    if not todo:
                        return
                    k = todo.pop(0)
                try:
                    one(k)
                except Exception as e:  # counted, the run goes on
                    with self.lock:
                        self.failures.append(str(e))

        t0 = time.time()
        threads = [threading.Thread(target=worker) for _ in range(conc)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.time() - t0

        def pct(v, q):
            v = sorted(v)
            return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] * 1000 if v else float("nan")

        done = sum(len(v) for v in self.durations.values())
        print(f"  {who}, {label}: {done} operations in {wall:.1f} s = {done / wall * 60:.0f} operations/min, {len(self.failures)} failed")
        for op, v in self.durations.items():
            print(f"    {op:<11} control overhead p50 {pct(v, 0.5):6.0f} ms  p99 {pct(v, 0.99):6.0f} ms  (n={len(v)})")
        if self.failures:
            print("    first failure:", self.failures[0])
        return done
