"""A long-lived tool beside a build, as a language server or a node dev
server is: 1,500 descriptors and 300 threads, so each round of the
watcher's scan of the command's processes is long (1005, 1006). Touches
.ready in the working directory once it is in place, then lives for
argv[1] seconds."""
import os
import resource
import sys
import threading
import time

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fd = os.open("/dev/null", os.O_RDONLY)
for i in range(min(1500, hard - 64)):
    os.dup(fd)
ev = threading.Event()
for i in range(300):
    threading.Thread(target=ev.wait, daemon=True).start()
open(".ready", "w").close()
time.sleep(float(sys.argv[1]))
