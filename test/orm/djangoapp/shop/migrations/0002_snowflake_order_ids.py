# Orders get snowflake IDs.  The database does the work (snowflake_adopt:
# bigint for shop_order.id and shop_orderline.order_id, the new default,
# the old sequence dropped, the boundary in a comment); state_operations
# tell Django's model state that Order.id is now a BigAutoField, so that
# makemigrations finds nothing to do.  CREATE EXTENSION needs a superuser.
from django.contrib.postgres.operations import CreateExtension
from django.db import migrations, models

BOUNDARY = r"""(SELECT substring(col_description(a.attrelid, a.attnum) FROM 'keys below (\d+)')::bigint
                  FROM pg_attribute a
                 WHERE a.attrelid = 'shop_order'::regclass AND a.attname = 'id')"""


class Migration(migrations.Migration):

    dependencies = [("shop", "0001_initial")]

    operations = [
        CreateExtension("snowflake"),
        migrations.RunSQL(
            sql="SELECT snowflake_adopt('shop_order', 'id', dry_run => false)",
            # back to a sequence, resuming after the largest key from
            # before; the columns stay bigint, newer orders keep their keys
            reverse_sql=[
                "CREATE SEQUENCE shop_order_id_seq OWNED BY shop_order.id",
                "SELECT setval('shop_order_id_seq', coalesce((SELECT max(id) FROM shop_order"
                " WHERE id < " + BOUNDARY + "), 0) + 1, false)",
                "ALTER TABLE shop_order ALTER COLUMN id SET DEFAULT nextval('shop_order_id_seq')",
                "COMMENT ON COLUMN shop_order.id IS NULL",
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="order",
                    name="id",
                    field=models.BigAutoField(primary_key=True, serialize=False),
                ),
            ],
        ),
    ]
