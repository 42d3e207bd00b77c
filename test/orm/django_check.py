# django_check.py: a Django 3.2 application (djangoapp/, the "shop" app)
# adopts snowflake IDs through its own migrations: 0001 creates serial
# keys, orders are placed, 0002 creates the extension and switches
# shop_order.id; new orders get snowflake keys back through RETURNING,
# older ones keep theirs; makemigrations sees nothing to do; migrating
# back to 0001 restores a sequence, and forward again works.
# Run by test/t/021_orm.pl against the database of the libpq environment
# (PGHOST, PGPORT, PGDATABASE).  Prints one "ok N - ..." or "not ok N - ..."
# line per check (TAP) and exits non-zero if any check failed.
import io
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "djangoapp"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from shop.models import Customer, Order, OrderLine  # noqa: E402

from tap import check, finish  # noqa: E402


def scalar(sql, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def boundary():
    return scalar(r"""SELECT substring(col_description(a.attrelid, a.attnum) FROM 'keys below (\d+)')::bigint
                        FROM pg_attribute a
                       WHERE a.attrelid = 'shop_order'::regclass AND a.attname = 'id'""")


def main():
    quiet = io.StringIO()

    # the application as it was, with two orders
    call_command("migrate", "shop", "0001", verbosity=0, stdout=quiet)
    check(scalar("SELECT pg_get_serial_sequence('shop_order', 'id')") == "public.shop_order_id_seq",
          "0001: shop_order.id is serial")
    customer = Customer.objects.create(name="Ada")
    old = [Order.objects.create(customer=customer) for _ in range(2)]
    OrderLine.objects.create(order=old[0], sku="pen")
    check([o.id for o in old] == [1, 2], "two orders from before, keys 1 and 2")

    # the migration
    call_command("migrate", verbosity=0, stdout=quiet)
    check(scalar("""SELECT format_type(atttypid, atttypmod) || ' ' || pg_get_expr(adbin, adrelid)
                      FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
                     WHERE attrelid = 'shop_order'::regclass AND attname = 'id'""")
          == "bigint snowflake_nextval()",
          "0002: shop_order.id is bigint with DEFAULT snowflake_nextval()")
    check(scalar("""SELECT format_type(atttypid, atttypmod) FROM pg_attribute
                     WHERE attrelid = 'shop_orderline'::regclass AND attname = 'order_id'""") == "bigint",
          "0002: shop_orderline.order_id, which refers to it, is bigint")
    first = boundary()
    check(first is not None and all(o.id < first for o in old),
          "the boundary is recorded, above the older keys")

    # new orders: the key comes back through RETURNING
    with CaptureQueriesContext(connection) as queries:
        order = Order.objects.create(customer=customer)
    insert_sql = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("INSERT")]
    check(len(insert_sql) == 1 and insert_sql[0].endswith('RETURNING "shop_order"."id"'),
          'Django inserts with RETURNING "shop_order"."id"')
    check(isinstance(order.id, int) and order.id >= first and order.id > 2 ** 53,
          "the new order has a snowflake key, at or above the boundary, beyond 2^53")
    check(scalar("SELECT snowflake_node_id(%s::bigint) = current_setting('snowflake.node_id')::int",
                 [order.id]),
          "the key carries this server's node ID")
    line = OrderLine.objects.create(order=order, sku="ink")
    check(OrderLine.objects.get(pk=line.pk).order_id == order.id,
          "an order line refers to the new key")
    batch = Order.objects.bulk_create([Order(customer=customer) for _ in range(3)])
    check(all(o.id is not None and o.id > order.id for o in batch) and len({o.id for o in batch}) == 3,
          "bulk_create() gets three new, increasing keys back")
    check(sorted(Order.objects.filter(id__lt=first).values_list("id", flat=True)) == [1, 2],
          "the orders from before keep their keys")
    check(json.loads(json.dumps(order.as_json()))["id"] == str(order.id),
          "the key leaves as a JSON string, exact for JavaScript")

    # the model state matches the database
    try:
        call_command("makemigrations", "shop", check=True, dry_run=True, verbosity=0, stdout=quiet)
        nothing_to_do = True
    except SystemExit:
        nothing_to_do = False
    check(nothing_to_do, "makemigrations --check finds no change")

    # loaddata and flush reset sequences through pg_get_serial_sequence():
    # with the sequence gone, the reset does nothing, and fails nothing
    reset = io.StringIO()
    call_command("sqlsequencereset", "shop", stdout=reset, no_color=True)
    with connection.cursor() as cursor:
        cursor.execute(reset.getvalue())
    check("pg_get_serial_sequence('\"shop_order\"','id')" in reset.getvalue(),
          "sqlsequencereset still names shop_order, and its statements run")

    # back to 0001: a sequence again, after the older keys
    call_command("migrate", "shop", "0001", verbosity=0, stdout=quiet)
    check(scalar("SELECT count(*) FROM pg_extension WHERE extname = 'snowflake'") == 0,
          "migrating back drops the extension")
    legacy = Order.objects.create(customer=customer)
    check(legacy.id == 3, "and the next order gets key 3 from the restored sequence")
    check(Order.objects.count() == 7, "no order was lost on the way")

    # and forward again
    call_command("migrate", verbosity=0, stdout=quiet)
    again = Order.objects.create(customer=customer)
    check(again.id >= boundary() > first, "migrating forward again: snowflake keys, a new boundary")

    return finish()


if __name__ == "__main__":
    sys.exit(main())
