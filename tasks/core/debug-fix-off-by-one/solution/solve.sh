#!/bin/bash
sed -i 's/range(start, 1, -1)/range(start, 0, -1)/' /app/countdown.py
python3 /app/countdown.py 3
