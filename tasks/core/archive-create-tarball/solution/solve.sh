#!/bin/bash
tar -czf /app/reports.tar.gz -C /app reports
tar -tzf /app/reports.tar.gz
