"""A connector command that runs the real connector and SIGKILLs it (and itself) after it emitted
KILL_AFTER_RECORDS records of `read` — a connector dying mid-read. With FAIL_WITH it instead emits a
TRACE error and exits 1 after that many records. Used through `executable:` in the airbyte config."""
import os
import signal
import subprocess
import sys

real = os.environ["REAL_CONNECTOR"]
limit = int(os.environ.get("KILL_AFTER_RECORDS", "0"))
proc = subprocess.Popen([real, *sys.argv[1:]], stdout=subprocess.PIPE, text=True)
seen = 0
for line in proc.stdout:
    sys.stdout.write(line)
    sys.stdout.flush()
    if sys.argv[1:2] == ["read"] and '"type":"RECORD"' in line.replace(" ", ""):
        seen += 1
        if limit and seen >= limit:
            if os.environ.get("FAIL_WITH"):
                trace = '{"type":"TRACE","trace":{"type":"ERROR","emitted_at":0,"error":{"message":"%s"}}}' % os.environ["FAIL_WITH"]
                sys.stdout.write(trace + "\n")
                sys.stdout.flush()
                proc.kill()
                sys.exit(1)
            proc.send_signal(signal.SIGKILL)
            os.kill(os.getpid(), signal.SIGKILL)
sys.exit(proc.wait())
