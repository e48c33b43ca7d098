#!/bin/bash
sed -i 's/^import sys$/import math\nimport sys/' /app/circle.py
python3 /app/circle.py
