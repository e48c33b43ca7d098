#!/bin/bash
sed -i 's/return width + height/return width * height/' /app/geometry.py
python3 -c "import sys; sys.path.insert(0, '/app'); import geometry; print(geometry.rectangle_area(3, 4))"
