-- When each user last signed in (the sign-in form, or LOCAL mode's user when the server starts): the review API's
-- lastLogin. Sessions alone cannot tell, since signing out or expiring deletes them.
ALTER TABLE users ADD COLUMN last_login timestamptz;
