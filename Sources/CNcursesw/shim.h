#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

// The wide-character API (get_wch, mvaddnwstr, cchar_t) is declared only with these.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// ncurses names its screen, its size and several calls through macros and global variables,
// which Swift cannot call or (under strict concurrency) read; these functions stand in for them.

static inline WINDOW *cn_screen(void) { return stdscr; }

/// Opens the terminal of standard output and input (TERM names it); NULL when ncurses cannot
/// drive it. Unlike initscr, it does not exit the process then.
static inline SCREEN *cn_open_terminal(void) { return newterm(NULL, stdout, stdin); }
static inline int cn_lines(void) { return LINES; }

/// Whether the terminal can move the cursor to a cell (TERM=dumb cannot): a full screen needs it.
static inline int cn_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}
static inline int cn_columns(void) { return COLS; }

/// Reads one key without waiting: OK with a character, KEY_CODE_YES with a function key
/// (KEY_RESIZE among them), ERR when none is waiting.
static inline int cn_read_key(wint_t *key) { return wget_wch(stdscr, key); }

/// Writes `count` wide characters at row `y`, column `x` with the attributes `attributes`.
static inline int cn_put(int y, int x, const wchar_t *text, int count, attr_t attributes, short pair) {
    wattr_set(stdscr, attributes, pair, NULL);
    return mvwaddnwstr(stdscr, y, x, text, count);
}

static inline attr_t cn_bold(void) { return A_BOLD; }
static inline attr_t cn_reverse(void) { return A_REVERSE; }
static inline attr_t cn_underline(void) { return A_UNDERLINE; }
static inline attr_t cn_dim(void) { return A_DIM; }

#endif
