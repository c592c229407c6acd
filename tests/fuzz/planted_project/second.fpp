# a comment
the second document
is short
