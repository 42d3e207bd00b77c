# env.py: runs the migrations of the test application online, in one
# transaction, against the database named by the libpq environment
# (PGHOST, PGPORT, PGDATABASE, PGUSER); SNOWFLAKE_ORM_URL overrides it.
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine

if context.config.config_file_name is not None:
    fileConfig(context.config.config_file_name)

url = os.environ.get("SNOWFLAKE_ORM_URL", "postgresql+psycopg2://")

if context.is_offline_mode():
    # 0002 asks the database for its statements: it has no offline form
    raise SystemExit("these migrations run online only")

engine = create_engine(url, future=True)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
