"""Runs cairn-bench-load subcommands (tests/bench/loadgen) and returns their JSON summaries."""
import json
import select
import signal
import subprocess
import time


class Loadgen:
    def __init__(self, binary, log):
        self.binary = binary
        self.log = log  # a text file: every command and its output

    def args(self, sub, flags, command=None):
        out = [self.binary, sub]
        for key, value in flags.items():
            if value is None or value is False:
                continue
            out.append("--" + key.replace("_", "-"))
            if value is not True:
                out.append(str(value))
        if command:
            out += ["--"] + list(command)
        return out

    def run(self, sub, bound_s, env=None, command=None, **flags):
        """Runs one subcommand, killed after bound_s. Returns its summary, or {"error": ...}."""
        args = self.args(sub, flags, command)
        self.log.write("$ " + " ".join(args[:40]) + "\n")
        self.log.flush()
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=bound_s, env=env)
        except subprocess.TimeoutExpired:
            self.log.write(f"  killed after {bound_s} s\n")
            return {"error": f"killed after {bound_s} s"}
        self.log.write(proc.stdout + proc.stderr)
        lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
        if not lines:
            return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}
        out = json.loads(lines[-1])
        if proc.returncode != 0 and "error" not in out:
            out["error"] = f"exit {proc.returncode}"
        return out


class Holder:
    """`cairn-bench-load hold` running in the background while other workloads run."""

    def __init__(self, loadgen, ready_timeout_s, **flags):
        self.loadgen = loadgen
        args = loadgen.args("hold", flags)
        loadgen.log.write("$ " + " ".join(args) + " &\n")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.ready = self._wait_ready(ready_timeout_s)

    def _wait_ready(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if r:
                line = self.proc.stdout.readline()
                if not line:
                    return None
                if line.startswith("{") and '"ready"' in line:
                    return json.loads(line)
            if self.proc.poll() is not None:
                return None
        return None

    def finish(self, timeout_s=30):
        """Stops the holder and returns its summary (or {"error": ...})."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        self.loadgen.log.write(out + err)
        lines = [l for l in out.splitlines() if l.startswith("{") and '"ready"' not in l]
        if not lines:
            return {"error": f"hold exited {self.proc.returncode}: {err.strip()[-300:]}"}
        result = json.loads(lines[-1])
        result["ready"] = self.ready
        return result
