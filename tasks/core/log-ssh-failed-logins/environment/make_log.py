"""Writes a reproducible sshd auth log: failed passwords for valid and invalid users (the IP sits in
different fields), accepted logins, disconnects and PAM lines that repeat the attackers' addresses."""

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

rng = random.Random(3110)
# ip -> failed password attempts
ATTACKERS = {"203.0.113.7": 23, "198.51.100.23": 17, "192.0.2.144": 9, "203.0.113.90": 6, "198.51.100.5": 5, "192.0.2.61": 4, "203.0.113.201": 2}
USERS = ["root", "admin", "deploy", "ubuntu", "test", "oracle", "git"]
VALID = {"root", "deploy", "git"}

events = []
for ip, attempts in ATTACKERS.items():
    for _ in range(attempts):
        user = rng.choice(USERS)
        port = rng.randint(30000, 65000)
        if user in VALID:
            events.append(f"Failed password for {user} from {ip} port {port} ssh2")
        else:
            events.append(f"Invalid user {user} from {ip} port {port}")
            events.append(f"Failed password for invalid user {user} from {ip} port {port} ssh2")
        if rng.random() < 0.5:
            events.append(f"Connection closed by authenticating user {user} {ip} port {port} [preauth]")
    events.append(f"pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost={ip}")
for _ in range(40):
    ip, port = f"10.0.0.{rng.randint(2, 40)}", rng.randint(30000, 65000)
    events.append(f"Accepted publickey for deploy from {ip} port {port} ssh2: ED25519 SHA256:{rng.randbytes(8).hex()}")
    events.append(f"pam_unix(sshd:session): session opened for user deploy(uid=1000) by (uid=0)")
rng.shuffle(events)

now = datetime(2024, 10, 3, 0, 0, 0)
lines = []
for event in events:
    now += timedelta(seconds=rng.randint(1, 400))
    stamp = f"{now:%b} {now.day:>2} {now:%H:%M:%S}"
    lines.append(f"{stamp} web1 sshd[{rng.randint(1000, 30000)}]: {event}")
out = Path(sys.argv[1])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text("\n".join(lines) + "\n")
