#!/bin/bash
python3 -c 'import json; print("\n".join(user["email"] for user in json.load(open("/app/users.json"))["users"]))' > /app/emails.txt
cat /app/emails.txt
