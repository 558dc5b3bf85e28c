/* The yardstick: random games of Portobello Market in plain C, for `portobello bench
 * yardstick` (sim/bench/yardstick.py), which writes the board and rules as integers, builds
 * this file with the system's C compiler and compares its rate with the compiled engine's
 * in the same run.
 *
 * The rules are docs/rules.md's (the defaults' readings: Bobby ties pay the co-leaders,
 * known or drawn order, baron, district tokens, the neutral stack, the end triggers), and
 * the agent is the toolkit's random agent in shape (kind first at the start of a turn; in
 * the actions phase a Bobby move with probability move_chance while under max_moves, else
 * a stall or a draw, else the end of the turn). The generator is xoshiro256** (seeded by
 * splitmix64), not the toolkit's: the games follow the same rules and the same policy, not
 * the same draws, so the check is on their averages (sim/bench/yardstick.py compares them).
 *
 * Written as a plain C engine is written for speed, so that the yardstick is an honest
 * limit: a game starts from a copy of a prepared state, the state is small integers (16
 * bits, which no global of the program aliases), each lane keeps its leading count and how
 * many seats share it (a Bobby move's price without a pass over the seats), the open
 * districts and empty squares are counted as they change, and the Bobby's affordable
 * moves are listed only when the policy is about to move it.
 *
 * Input on stdin, whitespace-separated integers:
 *   players stalls max_rounds negative_scores bobby_tie(0 co-leaders, 1 bank) baron
 *   known_order citizens aristocrats bobby_placer
 *   n_tokens tokens...  n_neutral neutral...  n_district_tokens district_tokens...
 *   start_scores[players]  mult[4*4] (by customer code pair, 0 none 1 citizen 2 aristocrat
 *   3 baron)
 *   n_squares n_lanes n_districts
 *   per lane: end0 end1 n_spots spots...
 *   per district: n_lanes lanes...
 *   games seed move_chance_permille max_moves
 * Output: one line of integers: games nanoseconds sum_score_seat0.. sum_rounds
 *   end_last_stall end_board_exhausted end_round_limit
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Limits (the standard board needs 22 lanes of up to 6 spots, 11 squares, 12 districts):
 * small, so that a game's state stays a few kilobytes and its reset is cheap. */
#define MAXP 8
#define MAXL 40
#define MAXS 40
#define MAXD 24
#define MAXSPOT 12
#define MAXT 8
#define MAXN 16

enum { SETUP, TURN_START, ACTIONS, PLACE, OVER };
enum { K_TOKEN, K_DISTRICT, K_STALL, K_DRAW, K_PLACE, K_MOVE, K_END, K_BOBBY };

static int P, STALLS, MAX_ROUNDS, NEG, BANK, BARON, KNOWN, CIT, ARI, PLACER;
static int NT, TOK[MAXT], NN, NEU[MAXN], NDT, DTOK[MAXT], START[MAXP], MULT[16];
static int NSQ, NL, ND, END0[MAXL], END1[MAXL], LEN[MAXL], SPOT[MAXL][MAXSPOT];
static int DL_N[MAXD], DL[MAXD][MAXL], NB_N[MAXD], NB_D[MAXD][MAXD], NB_L[MAXD][MAXD];
static int SQ_N[MAXS], SQ_L[MAXS][MAXL];
static int IS_DTOK[256];

typedef int16_t small;
typedef struct {
    int seat, round, turn, phase, actions_left, bobby, pending, end_reason;
    int n_open, n_empty, n_full, neutral_top, customers_left, line_pos, baron_square;
    int scores[MAXP], stalls_left[MAXP], bag[3];
    small tok_val[MAXP][MAXT], tok_up[MAXP][MAXT], tok_neu[MAXP][MAXT];
    small line[MAXS];
    small lane_count[MAXL], lane_dir[MAXL], lane_scored[MAXL], lane_max[MAXL], lane_leaders[MAXL];
    small lane_seat[MAXL][MAXP], spot_seat[MAXL][MAXSPOT];
    small square[MAXS], district_scored[MAXD];
} Game;

static Game START_STATE;  /* every game begins as a copy of it (then its line is shuffled) */

static uint64_t rng[4];
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t next64(void) {  /* xoshiro256** */
    uint64_t r = rotl(rng[1] * 5, 7) * 9, t = rng[1] << 17;
    rng[2] ^= rng[0]; rng[3] ^= rng[1]; rng[1] ^= rng[2]; rng[0] ^= rng[3];
    rng[2] ^= t; rng[3] = rotl(rng[3], 45);
    return r;
}
static void seed_rng(uint64_t seed) {  /* splitmix64 fills the state */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        rng[i] = z ^ (z >> 31);
    }
}
static inline int below(int n) { return (int)(((next64() >> 32) * (uint64_t)n) >> 32); }

static int rd(void) {
    int v;
    if (scanf("%d", &v) != 1) { fprintf(stderr, "bad input\n"); exit(2); }
    return v;
}

static int rd_max(int limit, const char *what) {
    int v = rd();
    if (v < 0 || v > limit) {
        fprintf(stderr, "%s: %d is over the yardstick's limit of %d\n", what, v, limit);
        exit(2);
    }
    return v;
}

static void read_input(void) {
    P = rd_max(MAXP, "players"); STALLS = rd(); MAX_ROUNDS = rd(); NEG = rd(); BANK = rd(); BARON = rd();
    KNOWN = rd(); CIT = rd(); ARI = rd(); PLACER = rd();
    NT = rd_max(MAXT, "tokens"); for (int i = 0; i < NT; i++) TOK[i] = rd();
    NN = rd_max(MAXN, "neutral tokens"); for (int i = 0; i < NN; i++) NEU[i] = rd();
    NDT = rd_max(MAXT, "district tokens");
    for (int i = 0; i < NDT; i++) { DTOK[i] = rd_max(255, "token"); IS_DTOK[DTOK[i]] = 1; }
    for (int p = 0; p < P; p++) START[p] = rd();
    for (int i = 0; i < 16; i++) MULT[i] = rd();
    NSQ = rd_max(MAXS, "squares"); NL = rd_max(MAXL, "lanes"); ND = rd_max(MAXD, "districts");
    for (int l = 0; l < NL; l++) {
        END0[l] = rd(); END1[l] = rd(); LEN[l] = rd_max(MAXSPOT, "spots in a lane");
        for (int k = 0; k < LEN[l]; k++) SPOT[l][k] = rd();
        SQ_L[END0[l]][SQ_N[END0[l]]++] = l;
        SQ_L[END1[l]][SQ_N[END1[l]]++] = l;
    }
    for (int d = 0; d < ND; d++) {
        DL_N[d] = rd_max(MAXL, "lanes of a district");
        for (int i = 0; i < DL_N[d]; i++) DL[d][i] = rd();
    }
    for (int d = 0; d < ND; d++)  /* neighbours: districts sharing a lane, by district */
        for (int e = 0; e < ND; e++) {
            if (d == e) continue;
            for (int i = 0; i < DL_N[d]; i++)
                for (int j = 0; j < DL_N[e]; j++)
                    if (DL[d][i] == DL[e][j]) {
                        NB_D[d][NB_N[d]] = e; NB_L[d][NB_N[d]] = DL[d][i]; NB_N[d]++;
                    }
        }
}

static void prepare_start(void) {
    Game *g = &START_STATE;
    memset(g, 0, sizeof *g);
    g->seat = 0; g->round = 1; g->turn = 1; g->phase = TURN_START; g->baron_square = -1;
    g->n_open = ND; g->n_empty = NSQ;
    for (int p = 0; p < P; p++) {
        g->scores[p] = START[p]; g->stalls_left[p] = STALLS;
        for (int k = 0; k < NT; k++) { g->tok_val[p][k] = TOK[k]; g->tok_up[p][k] = 1; }
    }
    for (int l = 0; l < NL; l++) {
        g->lane_dir[l] = -1;
        for (int k = 0; k < LEN[l]; k++) g->spot_seat[l][k] = -1;
    }
    for (int d = 0; d < ND; d++) g->district_scored[d] = -1;
    g->bag[1] = CIT; g->bag[2] = ARI; g->customers_left = CIT + ARI;
    for (int i = 0; i < CIT + ARI; i++) g->line[i] = i < CIT ? 1 : 2;
}

static void new_game(Game *g) {
    memcpy(g, &START_STATE, sizeof *g);
    if (KNOWN)
        for (int i = CIT + ARI - 1; i > 0; i--) {
            int j = below(i + 1), t = g->line[i];
            g->line[i] = g->line[j]; g->line[j] = t;
        }
}

/* Points the mover loses crossing `lane` (to the leaders, or to the bank). */
static inline int move_loss(const Game *g, int lane, int mover) {
    int most = g->lane_max[lane], leaders = g->lane_leaders[lane];
    if (most == 0) return 1;
    if (g->lane_seat[lane][mover] == most) return leaders == 1 ? 0 : BANK ? 1 : leaders - 1;
    return leaders;
}

static void score_lane(Game *g, int lane) {
    int m = MULT[g->square[END0[lane]] * 4 + g->square[END1[lane]]];
    for (int k = 0; k < LEN[lane]; k++) {
        int s = g->spot_seat[lane][k];
        if (s >= 0) g->scores[s] += SPOT[lane][k] * m;
    }
    g->lane_scored[lane] = 1;
}

static void score_lanes_at(Game *g, int sq) {
    for (int i = 0; i < SQ_N[sq]; i++) {
        int l = SQ_L[sq][i];
        if (!g->lane_scored[l] && g->lane_count[l] == LEN[l] && g->square[END0[l]] &&
            g->square[END1[l]])
            score_lane(g, l);
    }
}

static void finish(Game *g) {
    if (g->baron_square >= 0)
        for (int i = 0; i < SQ_N[g->baron_square]; i++) {
            int l = SQ_L[g->baron_square][i];
            if (!g->lane_scored[l]) score_lane(g, l);
        }
    g->phase = OVER;
}

static void end_turn(Game *g) {
    int s = g->seat, up = 0;
    for (int k = 0; k < NT; k++) if (g->tok_val[s][k] && g->tok_up[s][k]) up = 1;
    if (!up) for (int k = 0; k < NT; k++) if (g->tok_val[s][k]) g->tok_up[s][k] = 1;
    g->actions_left = 0;
    if (!g->end_reason && g->customers_left == 0 && g->n_full == NL) g->end_reason = 2;
    if (s == P - 1) {
        if (!g->end_reason && g->round >= MAX_ROUNDS) g->end_reason = 3;
        if (g->end_reason) { finish(g); return; }
        g->round++; g->seat = 0;
    } else {
        g->seat = s + 1;
    }
    g->turn++;
    g->phase = TURN_START;
}

static void place_stall(Game *g, int lane, int end) {
    int s = g->seat, c = g->lane_count[lane];
    if (c == 0) g->lane_dir[lane] = end;
    int spot = g->lane_dir[lane] == 0 ? c : LEN[lane] - 1 - c;
    g->spot_seat[lane][spot] = s;
    g->lane_count[lane] = c + 1;
    int mine = ++g->lane_seat[lane][s];
    if (mine > g->lane_max[lane]) { g->lane_max[lane] = mine; g->lane_leaders[lane] = 1; }
    else if (mine == g->lane_max[lane]) g->lane_leaders[lane]++;
    g->stalls_left[s]--;
    g->actions_left--;
    if (c + 1 == LEN[lane]) {
        g->n_full++;
        if (g->square[END0[lane]] && g->square[END1[lane]]) score_lane(g, lane);
    }
    if (g->stalls_left[s] == 0 && !g->end_reason) g->end_reason = 1;
}

static void place_customer(Game *g, int sq) {
    g->square[sq] = g->pending;
    g->pending = 0;
    g->n_empty--;
    g->phase = ACTIONS;
    score_lanes_at(g, sq);
    if (g->customers_left == 0 && BARON && g->baron_square < 0) {
        int b = 0;
        while (g->square[b]) b++;
        g->square[b] = 3;
        g->baron_square = b;
        g->n_empty--;
        score_lanes_at(g, b);
    }
}

static void draw(Game *g) {
    g->actions_left--;
    if (KNOWN) {
        g->pending = g->line[g->line_pos++];
    } else {  /* the chance draw, at once */
        int c = g->bag[1], a = g->bag[2];
        g->pending = below(c + a) < c ? 1 : 2;
        g->bag[g->pending]--;
    }
    g->customers_left--;
    g->phase = PLACE;
}

static void move_bobby(Game *g, int i) {
    int lane = NB_L[g->bobby][i], s = g->seat, most = g->lane_max[lane];
    g->scores[s] -= move_loss(g, lane, s);
    int leader = most && g->lane_seat[lane][s] == most;
    if (most && !(leader && (g->lane_leaders[lane] == 1 || BANK)))
        for (int p = 0; p < P; p++)
            if (p != s && g->lane_seat[lane][p] == most) g->scores[p]++;
    g->bobby = NB_D[g->bobby][i];
}

static void score_district(Game *g, int k, int d) {
    int s = g->seat, stalls = 0, v = g->tok_val[s][k];
    for (int i = 0; i < DL_N[d]; i++) stalls += g->lane_seat[DL[d][i]][s];
    g->scores[s] += v * stalls;
    g->district_scored[d] = s;
    g->n_open--;
    if (g->neutral_top < NN) {
        g->tok_val[s][k] = NEU[g->neutral_top++]; g->tok_neu[s][k] = 1; g->tok_up[s][k] = 1;
    } else {
        g->tok_val[s][k] = 0; g->tok_neu[s][k] = 0; g->tok_up[s][k] = 0;
    }
    end_turn(g);
}

/* One turn-start choice: a kind first (token or district), then one of its options. */
static void turn_start(Game *g) {
    int s = g->seat, play[MAXT], n_play = 0, n_scoring = 0, open = g->n_open;
    for (int k = 0; k < NT; k++) {
        int v = g->tok_val[s][k];
        if (!v || !g->tok_up[s][k]) continue;
        int dup = 0;
        for (int j = 0; j < n_play; j++)
            if (g->tok_val[s][play[j]] == v && g->tok_neu[s][play[j]] == g->tok_neu[s][k]) dup = 1;
        if (!dup) play[n_play++] = k;
        if (!g->tok_neu[s][k] && IS_DTOK[v]) n_scoring += open;
    }
    if (n_play == 0) { end_turn(g); return; }
    if (n_scoring && below(2)) {  /* score a district: one of the (token, district) pairs */
        int pick = below(n_scoring);
        for (int k = 0; k < NT; k++) {
            int v = g->tok_val[s][k];
            if (!v || !g->tok_up[s][k] || g->tok_neu[s][k] || !IS_DTOK[v]) continue;
            for (int d = 0; d < ND; d++)
                if (g->district_scored[d] < 0 && pick-- == 0) { score_district(g, k, d); return; }
        }
    }
    int k = play[below(n_play)];
    g->tok_up[s][k] = 0;
    g->actions_left = g->tok_val[s][k];
    g->phase = ACTIONS;
}

static void play_game(Game *g, int move_permille, int max_moves) {
    new_game(g);
    g->bobby = below(ND);  /* the Bobby's placement */
    int moves = 0, moves_turn = -1, stalls[2 * MAXL], movable[MAXD];
    while (g->phase != OVER) {
        if (g->phase == TURN_START) { turn_start(g); continue; }
        if (g->phase == PLACE) {  /* any empty square */
            int pick = below(g->n_empty), q = 0;
            for (;; q++) if (!g->square[q] && pick-- == 0) break;
            place_customer(g, q);
            continue;
        }
        /* ACTIONS: useful = stalls and the draw; a Bobby move it can afford */
        if (g->turn != moves_turn) { moves_turn = g->turn; moves = 0; }
        int s = g->seat, n_useful = 0, can_draw = 0, b = g->bobby;
        if (g->actions_left > 0) {
            if (g->stalls_left[s] > 0)
                for (int i = 0; i < DL_N[b]; i++) {
                    int l = DL[b][i], c = g->lane_count[l];
                    if (c < LEN[l]) {
                        if (c == 0) { stalls[n_useful++] = l * 2; stalls[n_useful++] = l * 2 + 1; }
                        else stalls[n_useful++] = l * 2 + g->lane_dir[l];
                    }
                }
            can_draw = g->customers_left > 0;
        }
        int useful = n_useful + can_draw;
        if (moves < max_moves && (!useful || below(1000) < move_permille)) {
            int n_moves = 0;
            for (int i = 0; i < NB_N[b]; i++)
                if (NEG || move_loss(g, NB_L[b][i], s) <= g->scores[s]) movable[n_moves++] = i;
            if (n_moves) {
                moves++;
                move_bobby(g, movable[below(n_moves)]);
                continue;
            }
        }
        if (useful) {
            int pick = below(useful);
            if (pick < n_useful) place_stall(g, stalls[pick] / 2, stalls[pick] % 2);
            else draw(g);
            continue;
        }
        end_turn(g);
    }
}

int main(void) {
    read_input();
    int games = rd(), seed = rd(), move_permille = rd(), max_moves = rd();
    seed_rng((uint64_t)seed);
    prepare_start();
    static Game g;
    long long sums[MAXP] = {0}, rounds = 0, ends[4] = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < games; i++) {
        play_game(&g, move_permille, max_moves);
        for (int p = 0; p < P; p++) sums[p] += g.scores[p];
        rounds += g.round;
        ends[g.end_reason]++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    printf("%d %lld", games, ns);
    for (int p = 0; p < P; p++) printf(" %lld", sums[p]);
    printf(" %lld %lld %lld %lld\n", rounds, ends[1], ends[2], ends[3]);
    return 0;
}
