# settings.py: the least Django needs to run the "shop" app's migrations
# and models against PostgreSQL (psycopg2).  The database comes from the
# libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER), as the TAP
# test sets it.
import os

SECRET_KEY = "only for the snowflake tests"
INSTALLED_APPS = ["shop"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("PGDATABASE", "postgres"),
        "USER": os.environ.get("PGUSER", "postgres"),
        "HOST": os.environ.get("PGHOST", ""),
        "PORT": os.environ.get("PGPORT", ""),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
TIME_ZONE = "UTC"
