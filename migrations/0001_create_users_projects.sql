-- Users, their sessions and API keys, and projects: the spine every later table refers to.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE users (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The login is the user id of the legacy API (tags, stars, tasks refer to it).
  login varchar(96) NOT NULL UNIQUE,
  email text,
  name varchar(255),
  provider varchar(255) NOT NULL DEFAULT 'local',
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- scrypt$N$r$p$salt$hash; null for users who cannot sign in with a password.
  password_hash text,
  roles text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id varchar(64) PRIMARY KEY,
  user_login varchar(96) NOT NULL REFERENCES users (login) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE api_keys (
  -- SHA-384 hex of the key as handed out; the key itself is never stored.
  hashed_key char(96) PRIMARY KEY,
  user_login varchar(96) NOT NULL UNIQUE,
  creation_date timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id varchar(255) PRIMARY KEY,
  source_path varchar(4096),
  label varchar(255),
  description varchar(4096),
  publisher_name varchar(255),
  maintainer_name varchar(255),
  logo_url varchar(2048),
  source_url varchar(2048),
  -- IP mask with one `*` per octet (a.b.*.*); null or `*` allows every address.
  allow_from_mask varchar(64),
  creation_date timestamptz NOT NULL DEFAULT now(),
  update_date timestamptz NOT NULL DEFAULT now()
);
