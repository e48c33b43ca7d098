#!/bin/bash
sed -i 's/from inventory.model import Item/from inventory.models import Item/; s/int(row\["price"\])/float(row["price"])/' /app/inventory/loader.py
