"""Orders get snowflake IDs.

snowflake_adopt() changes orders.id and order_lines.order_id to bigint,
replaces the serial default with snowflake_nextval(), drops the old
sequence and records the boundary in a comment on orders.id.  Existing
orders keep their keys.  CREATE EXTENSION needs a superuser (the extension
is not trusted).

Revision ID: 0002
Revises: 0001
"""
import logging

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

BOUNDARY = sa.text(
    r"""SELECT substring(col_description(a.attrelid, a.attnum) FROM 'keys below (\d+)')::bigint
          FROM pg_attribute a
         WHERE a.attrelid = 'orders'::regclass AND a.attname = 'id'"""
)


def upgrade():
    op.execute("CREATE EXTENSION snowflake")
    bind = op.get_bind()
    statements = bind.execute(
        sa.text("SELECT s FROM snowflake_adopt('orders', 'id', dry_run => false) AS s")
    ).scalars().all()
    for statement in statements:
        log.info("snowflake_adopt: %s", statement)


def downgrade():
    # Back to a sequence.  The columns stay bigint: orders created since
    # the upgrade keep their snowflake IDs.  The sequence resumes after the
    # largest key from before the upgrade (the boundary in the comment).
    bind = op.get_bind()
    boundary = bind.execute(BOUNDARY).scalar_one()
    op.execute("CREATE SEQUENCE orders_id_seq OWNED BY orders.id")
    bind.execute(
        sa.text(
            "SELECT setval('orders_id_seq',"
            " coalesce((SELECT max(id) FROM orders WHERE id < :boundary), 0) + 1, false)"
        ),
        {"boundary": boundary},
    )
    op.execute("ALTER TABLE orders ALTER COLUMN id SET DEFAULT nextval('orders_id_seq')")
    op.execute("COMMENT ON COLUMN orders.id IS NULL")
    op.execute("DROP EXTENSION snowflake")
