"""The event log is append-only: PostgreSQL refuses UPDATE, DELETE and TRUNCATE on games_event.

TRUNCATE has one escape hatch, a session setting (``SET goodcritters.allow_event_truncate = 'on'``), used by the
test database teardown (Django flushes with TRUNCATE); UPDATE and DELETE have none.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' AND current_setting('goodcritters.allow_event_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'games_event is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER games_event_no_update_delete
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();

CREATE TRIGGER games_event_no_truncate
    BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP TRIGGER IF EXISTS games_event_no_update_delete ON games_event;
DROP FUNCTION IF EXISTS games_event_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
