one small sentence
another line here
