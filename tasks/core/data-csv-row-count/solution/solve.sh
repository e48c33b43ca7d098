#!/bin/bash
tail -n +2 /app/orders.csv | wc -l > /app/order_count.txt
cat /app/order_count.txt
