#!/bin/bash
python3 -c "import json; print(json.load(open('/app/user.json'))['email'])" > /app/email.txt
cat /app/email.txt
