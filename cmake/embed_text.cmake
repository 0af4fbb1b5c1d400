# Turn a text file into a C header holding it as one string literal:
#   cmake -DINPUT=file -DOUTPUT=header -DNAME=MACRO -P embed_text.cmake
# Read whole (not as a list: rules may hold ';'); each line becomes "line\n", with
# backslashes and quotes escaped.
file(READ "${INPUT}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\" \\\n    \"" text "${text}")
set(out "/* Generated from ${INPUT} by cmake/embed_text.cmake: do not edit. */\n")
string(APPEND out "#define ${NAME} \\\n    \"${text}\"\n\n")
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
