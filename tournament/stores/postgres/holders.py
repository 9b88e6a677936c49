"""Who could switch the record's append-only guard off, as the role a connection logs in as: the
service refuses to serve as one (service/event/opening.py), so that rewriting the record takes a
role no instance holds. PostgreSQL's own rules, read from its catalogs in one query.
"""

from __future__ import annotations

import psycopg

# Who could switch the record's guard off (drop or disable its triggers, replace their function,
# drop the table and make another): the owners of the database, of the record's table, of its
# schema and of the triggers' function; a role may do all that a role it is a member of may (SET
# ROLE), and a superuser all, as may a member of a superuser role. The first such owner, in that
# order, with what it owns. Nor may a role owning nothing turn the trigger off for its own
# sessions: no trigger fires in a session
# whose session_replication_role is `replica`, which a role may set if a superuser granted it
# (GRANT SET ON PARAMETER, from PostgreSQL 15, kept in pg_parameter_acl), or a superuser's ALTER
# ROLE or ALTER DATABASE … SET made its sessions start with it; the grantee named is the role
# itself, else a role it is a member of, else PUBLIC. And roles that may become any of those: one
# with CREATEROLE before PostgreSQL 16 (it may grant itself any role but a superuser, the owner
# included), a member of pg_execute_server_program or pg_write_server_files (programs run, files
# written, as the server's own user: its data files, its configuration).
GUARD_OWNERS = ("the database", "the record's table", "the record's schema", "the record's trigger function")
GUARD_HOLDER = """
SELECT current_user, (
    SELECT rolname FROM pg_roles AS superuser WHERE rolsuper AND pg_has_role(current_user, superuser.oid, 'MEMBER')
        ORDER BY rolname <> current_user, rolname LIMIT 1
), (
    SELECT ARRAY[what::text, pg_get_userbyid(owner)] FROM (VALUES
        (1, (SELECT datdba FROM pg_database WHERE datname = current_database())),
        (2, (SELECT relowner FROM pg_class WHERE oid = to_regclass('records'))),
        (3, (SELECT nspowner FROM pg_namespace JOIN pg_class ON relnamespace = pg_namespace.oid
             WHERE pg_class.oid = to_regclass('records'))),
        (4, (SELECT proowner FROM pg_proc WHERE oid = to_regproc('records_append_only')))
    ) AS owners (what, owner)
    WHERE owner IS NOT NULL AND pg_has_role(current_user, owner, 'MEMBER') ORDER BY what LIMIT 1
), current_setting('session_replication_role'), {setter},
rolcreaterole AND current_setting('server_version_num')::int < 160000, (
    SELECT rolname FROM pg_roles AS server WHERE rolname IN ('pg_execute_server_program', 'pg_write_server_files')
        AND pg_has_role(current_user, server.oid, 'MEMBER') ORDER BY rolname LIMIT 1
) FROM pg_roles WHERE rolname = current_user
"""
REPLICATION_SETTER = """(
    SELECT CASE grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(grantee) END
    FROM pg_parameter_acl, aclexplode(paracl)
    WHERE parname = 'session_replication_role' AND privilege_type = 'SET'
        AND (grantee = 0 OR pg_has_role(current_user, grantee, 'MEMBER'))
    ORDER BY grantee = 0, pg_get_userbyid(grantee) <> current_user, 1 LIMIT 1
)"""


def guard_holder(conn: psycopg.Connection) -> str | None:
    """The role of `conn` and why it could switch the record's append-only guard off ("lexicon_owner,
    which owns the database"); None when it could not. Before PostgreSQL 15 only a superuser may set
    session_replication_role, and there is no pg_parameter_acl to ask."""
    setter = REPLICATION_SETTER if conn.info.server_version >= 150000 else "NULL"
    answer = conn.execute(GUARD_HOLDER.format(setter=setter)).fetchone()
    user, superuser, owned, replication, may_set, creates_roles, server = answer
    if superuser is not None:
        return f"{user}, a superuser" if superuser == user else f"{user}, a member of {superuser}, a superuser"
    if owned is not None:
        what, owner = GUARD_OWNERS[int(owned[0]) - 1], owned[1]
        return f"{user}, which owns {what}" if owner == user else f"{user}, a member of {owner}, which owns {what}"
    if server is not None:
        what = "run programs" if server == "pg_execute_server_program" else "write files"
        return f"{user}, a member of {server}, which may {what} as the database's server"
    if creates_roles:
        return f"{user}, which has CREATEROLE and so may make itself a member of any role but a superuser"
    if replication == "replica":
        return f"{user}, whose sessions start with session_replication_role replica, where no trigger fires"
    if may_set is not None:
        what = "may set session_replication_role, and so keep any trigger from firing in its sessions"
        return f"{user}, which {what}" if may_set == user else f"{user}, a member of {may_set}, which {what}"
    return None
