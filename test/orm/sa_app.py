# sa_app.py: the application after Alembic's 0002, in SQLAlchemy 1.4: the
# ORM and Core insert orders and get their snowflake keys back through
# RETURNING; older orders keep their keys; IDs leave as JSON strings.
# Run by test/t/021_orm.pl against the database of the libpq environment
# (PGHOST, PGPORT, PGDATABASE).  Prints one "ok N - ..." or "not ok N - ..."
# line per check (TAP) and exits non-zero if any check failed.
import json
import os
import sys

from sqlalchemy import (BigInteger, Column, DateTime, ForeignKey, Integer,
                        Text, create_engine, event, func, insert, select, text)
from sqlalchemy.orm import Session, declarative_base, relationship

from tap import check, finish


Base = declarative_base()


class Customer(Base):
    __tablename__ = "customers"
    id = Column(Integer, primary_key=True)          # still serial
    name = Column(Text, nullable=False)


class Order(Base):
    __tablename__ = "orders"
    # the database fills the key; SQLAlchemy reads it back with RETURNING
    id = Column(BigInteger, primary_key=True, server_default=text("snowflake_nextval()"))
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    placed_at = Column(DateTime(timezone=True), server_default=func.now(), nullable=False)
    lines = relationship("OrderLine", back_populates="order")

    def as_json(self):
        # 64-bit keys go out as strings: JavaScript numbers are exact only
        # up to 2^53
        return {"id": str(self.id), "customer_id": self.customer_id}


class OrderLine(Base):
    __tablename__ = "order_lines"
    id = Column(Integer, primary_key=True)
    order_id = Column(BigInteger, ForeignKey("orders.id"), nullable=False)
    sku = Column(Text, nullable=False)
    order = relationship("Order", back_populates="lines")


def main():
    engine = create_engine(os.environ.get("SNOWFLAKE_ORM_URL", "postgresql+psycopg2://"), future=True)
    statements = []

    @event.listens_for(engine, "before_cursor_execute")
    def remember(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    with engine.connect() as conn:
        boundary = conn.execute(text(
            r"""SELECT substring(col_description(a.attrelid, a.attnum) FROM 'keys below (\d+)')::bigint
                  FROM pg_attribute a WHERE a.attrelid = 'orders'::regclass AND a.attname = 'id'"""
        )).scalar_one()
        old_max = conn.execute(select(func.max(Order.id)).where(Order.id < boundary)).scalar_one()
        node_id = int(conn.execute(text("SHOW snowflake.node_id")).scalar_one())
    check(boundary is not None and old_max is not None and old_max < boundary,
          "orders.id records the boundary; the orders from before are below it")

    # the ORM: add, flush, and the key is there
    with Session(engine) as session:
        customer = session.execute(select(Customer).order_by(Customer.id)).scalars().first()
        order = Order(customer_id=customer.id)
        session.add(order)
        statements.clear()
        session.flush()
        insert_sql = [s for s in statements if s.lstrip().upper().startswith("INSERT INTO ORDERS")]
        check(len(insert_sql) == 1 and "RETURNING orders.id" in insert_sql[0],
              "the ORM inserts with RETURNING orders.id")
        check(isinstance(order.id, int) and order.id >= boundary,
              "the new order has a snowflake key, at or above the boundary")
        check(order.id > old_max, "above every older key")
        check(order.id > 2 ** 53, "beyond 2^53, where JavaScript numbers stop being exact")

        # a child row refers to it through the widened foreign key
        order.lines.append(OrderLine(sku="pen"))
        session.flush()
        check(order.lines[0].order_id == order.id, "an order line refers to the new key")
        session.commit()
        new_id = order.id

    with engine.connect() as conn:
        decoded = conn.execute(text("SELECT snowflake_node_id(CAST(:id AS bigint))"), {"id": new_id}).scalar_one()
        check(decoded == node_id, "the key carries this server's node ID")

        # Core: several rows in one INSERT ... RETURNING
        customer_id = conn.execute(select(func.min(Customer.id))).scalar_one()
        rows = conn.execute(
            insert(Order.__table__).values([{"customer_id": customer_id}] * 3).returning(Order.__table__.c.id)
        ).scalars().all()
        conn.commit()
        check(len(rows) == 3 and len(set(rows)) == 3 and all(r > new_id for r in rows),
              "Core insert().returning() gives three new, increasing keys")

        # older orders are still there, with their keys
        old_keys = conn.execute(select(Order.id).where(Order.id < boundary).order_by(Order.id)).scalars().all()
        check(old_keys == [1, 2], "the orders from before keep their keys")

        # JSON for JavaScript clients: a string is exact, a number is not.
        # (A key whose low bits are zero survives the conversion to a
        # double; sequence 1 cannot: a fixed one.)
        vector = conn.execute(text(
            "SELECT snowflake_from_parts('2026-06-15 12:00:00+00', 5, 1)::bigint")).scalar_one()
        as_number = json.loads(json.dumps({"id": vector}), parse_int=float)["id"]
        check(int(as_number) != vector, "a key as a JSON number does not survive a JavaScript parser")
        with Session(engine) as session:
            payload = json.dumps(session.get(Order, new_id).as_json())
        check(json.loads(payload)["id"] == str(new_id), "as a JSON string it does")
        in_db = conn.execute(text(
            "SELECT to_json(CAST(:id AS bigint)::snowflake)::text, to_json(CAST(:id AS bigint))::text"),
            {"id": new_id}).one()
        check(in_db[0] == f'"{new_id}"' and in_db[1] == str(new_id),
              "in the database, to_json() of a snowflake is a string, of a bigint a number")

    return finish()


if __name__ == "__main__":
    sys.exit(main())
