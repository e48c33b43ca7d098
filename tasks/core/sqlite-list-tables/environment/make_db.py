"""Writes a small inventory database with five tables, two views and some indexes."""

import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
    CREATE TABLE products (
        id INTEGER PRIMARY KEY,
        sku TEXT NOT NULL,
        name TEXT NOT NULL,
        category_id INTEGER REFERENCES categories(id),
        supplier_id INTEGER REFERENCES suppliers(id)
    );
    CREATE TABLE warehouses (id INTEGER PRIMARY KEY, city TEXT NOT NULL);
    CREATE TABLE stock_moves (
        id INTEGER PRIMARY KEY,
        product_id INTEGER NOT NULL REFERENCES products(id),
        warehouse_id INTEGER NOT NULL REFERENCES warehouses(id),
        quantity INTEGER NOT NULL,
        moved_on TEXT NOT NULL
    );
    CREATE UNIQUE INDEX idx_products_sku ON products(sku);
    CREATE INDEX idx_stock_moves_product ON stock_moves(product_id);
    CREATE VIEW stock_levels AS
        SELECT product_id, warehouse_id, sum(quantity) AS on_hand FROM stock_moves GROUP BY product_id, warehouse_id;
    CREATE VIEW low_stock AS SELECT * FROM stock_levels WHERE on_hand < 5;

    INSERT INTO categories (name) VALUES ('cables'), ('lamps'), ('tools');
    INSERT INTO suppliers (name, country) VALUES ('Voltex', 'DE'), ('Lumina', 'IT');
    INSERT INTO products (sku, name, category_id, supplier_id) VALUES
        ('CB-001', 'USB-C cable 1m', 1, 1), ('LP-010', 'desk lamp', 2, 2), ('TL-100', 'screwdriver set', 3, 1);
    INSERT INTO warehouses (city) VALUES ('Lyon'), ('Turin');
    INSERT INTO stock_moves (product_id, warehouse_id, quantity, moved_on) VALUES
        (1, 1, 40, '2024-03-01'), (1, 1, -12, '2024-03-09'), (2, 2, 6, '2024-03-02'), (2, 2, -3, '2024-03-15'),
        (3, 1, 10, '2024-03-04'), (3, 2, 2, '2024-03-20');
    """
)
db.commit()
