"""First-name detectors for :class:`fairbound.text.GenderNeutralizer`.

The transform of Jourdan et al. (2023) replaces every first name with one neutral name.
Which words are first names is decided by a *detector*: any object with a method
``spans(text) -> list[tuple[int, int]]`` giving the character spans to replace
(:class:`NameDetector`).  Two are provided:

* :class:`NameListDetector` (the default): a bundled list of first names read in context.
  The list is the 1990 US Census first names (public domain, via the ``names`` package,
  MIT) and the gender-informative names of ``nomquamgender`` 0.1.4 (MIT; names seen in at
  least 5 of its sources, at least 50 times, with p(female) at most 0.2 or at least 0.8),
  bundled as ``first_names.txt`` with the licence file beside it; nothing is downloaded.
  A word of the list is a first name only in context: it starts a run of capitalised
  words that is no place, organisation or award.  The rules:

  - a run of capitalised words (joined by spaces, hyphens, initials such as ``S.`` and
    possessives such as ``Rebecca's Tent``) containing a place or organisation cue
    (University, College, Foundation, Award, Prize, Show, Hospital, Street, Valley, Kong,
    ...) or starting with a place prefix (San, Santa, St, Fort, Mount, New, North, ...)
    holds no first name ("Florida Atlantic University", "Hong Kong", "Emmy Awards",
    "Richard Stockton College");
  - month and weekday names, languages and nationalities, and a gazetteer of countries,
    US states and large cities are never first names; the few that are also common first
    names (Georgia, Victoria, Charlotte, Jordan, ...) are names only when a surname
    follows them ("Victoria Beckham"), never alone;
  - a run right after a preposition of place (in, at, from, near, of, ...) or after
    ``the`` is a place or an organisation ("in Florida", "the Carol Burnett Show");
  - only the first word of a run is a first name (and the words hyphenated to it, as in
    "Jean-Philippe"): "Mary Lee" keeps her surname; after a title ("Dr.", "Mr", "Bishop")
    the next word is a first name when a surname follows ("Dr. Derek Ginter") and, alone,
    only when it is not one of the 5,000 most common census surnames ("Dr. Jen", but
    "Dr. Russell");
  - words that are also ordinary English words (Will, Grace, Hope, Summer, Art, ...) are
    first names only when a surname follows ("Grace Kelly", not "Sovereign Grace");
  - a run that starts with a place name of two or more words of the bundled GeoNames
    gazetteer (``places.txt``, cities of at least 15,000 people, countries, US states; CC BY
    4.0, see ``GEONAMES_LICENSE.txt``) is a place ("Leighton Buzzard", "Des Plaines"), and
    so is a run followed by a comma and a state, a country or a large city ("Aylesbury,
    England"), or after "moved to", "returned to", ...;
  - a lone word after a determiner (a, this, her, their, ...) is a common noun or a title
    ("a Summer of Love", "her Oscar"; but "a Stevie Wonder album");
  - lists are of one kind: when an item of "A, B and C" (or of three or more items joined
    by commas) is a place, an organisation or a word no list holds, every item is a brand,
    a title or a place ("Diesel, Jean Paul Gaultier and Versace", "Homeo and Juliet");
    lower-case particles join a run ("Jaime de Angulo", "Isla de Encanta");
  - a kin noun before a lone word makes it a first name even when it is mostly a surname
    ("his wife Jennifer", "their boys, Taylor and Cameron");
  - a word the list lacks is a first name of the text when an honorific and a surname frame
    it ("Dr. Wasiq Rafeeq"), or when a common census surname follows it and it is also the
    subject of a verb alone elsewhere or listed beside a person ("Paten Locke ... Paten
    joined", "Russell Simmons and Lyor Cohen"); it is then replaced everywhere in the text.

  Measured on the hand-annotated Bias in Bios sample (see ``docs/stability.md``): 100% and
  94.0% on the development half the rules were written against, 88.1% of replacements
  right and 87.3% of first names found on the held-out test half.

* :class:`SpacyNameDetector`: the first word of each PERSON entity of an installed spaCy
  model (an optional extra; the model is never downloaded at run time).

Examples
--------
>>> NameListDetector().names_in("Dustin lives in Chicago; he joined Hong Kong's Emmy Awards.")
['Dustin']
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Protocol, runtime_checkable

from fairbound.errors import FairboundError


@runtime_checkable
class NameDetector(Protocol):
    """What :class:`~fairbound.text.GenderNeutralizer` needs from a first-name detector."""

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans ``(start, end)`` of the first names in ``text``, in order."""
        ...  # pragma: no cover


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_SKIP_SPAN = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|[@#]\w+")
_SENTENCE_END = re.compile(r"[.!?:;\n]['\")\]\s]*$")


def _words(*chunks: str) -> frozenset[str]:
    return frozenset(w for c in chunks for w in c.split())


MONTHS = _words("january february march april may june july august september october "
                "november december sept")
WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
_NATIONS = _words(
    "english french german spanish italian irish scottish welsh british american african "
    "asian european chinese japanese korean indian russian polish greek thai dutch swiss "
    "canadian australian mexican brazilian filipino arabic arab portuguese vietnamese latin "
    "jewish catholic muslim hindu baptist methodist lutheran hispanic latino latina native "
    "swedish norwegian danish finnish turkish persian iranian israeli egyptian nigerian "
    "kenyan pakistani bengali tagalog hebrew yiddish")
#: Places that are never first names here (lower case).
PLACES = _words(
    # US states
    "alabama alaska arizona arkansas california colorado connecticut delaware florida "
    "hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland "
    "massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio "
    "oklahoma oregon pennsylvania tennessee texas utah vermont washington wisconsin wyoming "
    "carolina dakota "
    # countries and regions
    "afghanistan albania algeria argentina armenia austria bangladesh belgium bolivia "
    "brazil bulgaria cambodia cameroon canada chile china colombia croatia cuba cyprus "
    "denmark ecuador egypt england estonia ethiopia europe finland france germany ghana "
    "greece guatemala haiti honduras hungary iceland indonesia iran iraq ireland italy "
    "jamaica japan kenya korea kosovo latvia lebanon libya lithuania malaysia mexico "
    "mongolia morocco nepal netherlands nicaragua nigeria norway pakistan panama peru "
    "philippines poland portugal romania russia rwanda scotland senegal serbia singapore "
    "slovakia slovenia somalia spain sudan sweden switzerland syria taiwan tanzania "
    "thailand tunisia turkey uganda ukraine uruguay venezuela vietnam wales yemen zambia "
    "zimbabwe africa asia america australia antarctica oceania caribbean balkans bali "
    "tobago trinidad iberia scandinavia siberia "
    # large cities
    "london chicago boston dallas houston denver seattle portland miami atlanta detroit "
    "philadelphia baltimore pittsburgh cleveland cincinnati nashville memphis tampa "
    "orlando sacramento toronto montreal vancouver ottawa calgary melbourne brisbane perth "
    "adelaide auckland dublin glasgow edinburgh manchester liverpool birmingham bristol "
    "oxford cambridge berlin munich hamburg vienna prague budapest warsaw moscow kiev kyiv "
    "rome milan naples venice madrid barcelona lisbon amsterdam brussels geneva zurich "
    "stockholm oslo copenhagen helsinki athens istanbul cairo dubai mumbai delhi bangalore "
    "kolkata chennai tokyo osaka kyoto beijing shanghai seoul manila jakarta bangkok "
    "hanoi singapore lagos nairobi johannesburg baghdad tehran karachi lahore brooklyn "
    "manhattan bronx queens hollywood harlem albuquerque phoenix tucson honolulu "
    "anchorage rochester syracuse buffalo albany")
#: Places that are also common first names: names only when a surname follows.
_PLACE_NAMES = _words("georgia virginia victoria charlotte jordan israel india chelsea "
                      "madison lincoln austin florence sydney paris jackson dallas "
                      "savannah phoenix carolina columbia regina adelaide")
#: Capitalised words that often start sentences or titles and are never first names.
_NEVER = _words(
    "the a an in on at to of so do or no oh are is was be am he she it we they his her him "
    "hers their born read patient master general law justice doctor media live long odd "
    "future time special beautiful happy see many blue cross silver bronze gold green black "
    "white red golden christ jesus god lord allah buddha bible english art tai chi yoga "
    # gendered nouns: never a first name
    "men women man woman boy boys girl girls guy guys gal gals lady ladies gentleman sir "
    "madam king queen prince princess actor actress hero heroine "
    "oral sun sea star rock love light life line wonder choice little big second first "
    "premier royal grand saint emmy oscar grammy tony pastor bishop mercy holy trinity "
    # universities and colleges known by one word
    "harvard yale princeton stanford emory duke cornell vanderbilt brown dartmouth "
    "columbia rutgers purdue tufts oberlin berkeley caltech")
_NOT_FIRST = MONTHS | WEEKDAYS | _NATIONS | PLACES | _NEVER

#: First names that are also ordinary words: names only when a surname follows.
AMBIGUOUS = _words(
    "al amber an angel art asia autumn ben bill bob buddy carol carter chance chase china "
    "crystal daisy dale dawn dean destiny drew earnest ed else ernest faith frank gay gene "
    "glen grant guy harmony holly hope hunter in iris ivy jack jean jewel joy ken kim king "
    "lane lee lily long lou love major many mark mason miles my page parker pat pearl penny "
    "prince ray rich rob rod rose royal ruby rusty sandy see so sol sonny sterling sue "
    "summer sunny tommie trinity un val van violet wade ward wes will young america "
    "christian german grace honey precious")

#: Titles after which a word is a first name only if a surname follows or it is rare as
#: a surname.
TITLES = _words("mr mrs ms miss mx dr prof professor doctor rev reverend bishop pastor "
                "rabbi imam judge coach captain capt sen senator chef canon fr father "
                "sister brother sir dame lord lady")

#: Titles that always stand before a person's name (a word after them that the list lacks
#: is a first name when a surname follows: "Dr. Wasiq Rafeeq").
HONORIFICS = _words("mr mrs ms miss mx dr prof professor")
_SUFFIXES = _words("jr sr ii iii iv md phd dds esq")

#: Words that make a run of capitalised words a place, an organisation or an award.
ORG_CUES = _words(
    "university universities universidad college colleges school schools institute "
    "institutes academy foundation award awards prize prizes medal show center centre "
    "hospital clinic clinics health medical healthcare society association council church "
    "chapel cathedral temple ministries trust company co inc corp corporation llc llp ltd "
    "pc md dds group partners press records publishing magazine journal review times news "
    "gallery museum theatre theater studio studios hall library festival park street "
    "avenue ave road rd boulevard blvd drive square city county state island islands "
    "valley lake river bay beach creek hill hills mountain mountains falls springs "
    "heights harbor harbour port airport station stadium arena club cafe restaurant hotel "
    "resort salon spa agency bank ventures labs systems solutions technologies network "
    "house books band orchestra ensemble choir quartet productions pictures films tv "
    "radio channel program programme project scholar scholarship fellowship lecture "
    "series conference games cup league district region province kingdom republic "
    "empire coast shield world area conservation reserve forest garden gardens faculty "
    "department dept page kong rica zealand lanka aires angeles vegas york jersey "
    "hampshire mexico orleans dhabi salvador domingo janeiro francisco diego "
    "antonio clara barbara monica cruz jose costa fe centers centres hospitals shelter")
#: First words that make a run a place.
PLACE_PREFIXES = _words("san santa santo sao st saint fort ft mount mt port cape lake new "
                        "north south east west upper lower great la le las los el al rio "
                        "puerto")
#: Words right before a run that make it a place or an organisation.
PLACE_PREPOSITIONS = _words("the in at near from across throughout outside inside around "
                            "via toward towards into of within")


def _read_table(filename: str) -> list[list[str]]:
    text = resources.files("fairbound.text").joinpath(filename).read_text("utf-8")
    return [ln.strip().split("\t") for ln in text.splitlines()
            if ln.strip() and not ln.startswith("#")]


@lru_cache(maxsize=1)
def first_name_counts() -> dict[str, int]:
    """Return the bundled first names (lower case) with how often each was seen.

    Examples
    --------
    >>> c = first_name_counts()
    >>> c["mary"] > c["peta"] > 0
    True
    """
    return {r[0]: int(r[1]) for r in _read_table("first_names.txt")}


def first_names() -> frozenset[str]:
    """Return the bundled list of first names (lower case).

    Returns
    -------
    frozenset of str
        37,589 names: the 1990 US Census first names (public domain) and the
        gender-informative names of ``nomquamgender`` (MIT); see the module docstring.

    Examples
    --------
    >>> "mary" in first_names(), "table" in first_names(), "riddhi" in first_names()
    (True, False, True)
    """
    return _first_name_set()


@lru_cache(maxsize=1)
def _first_name_set() -> frozenset[str]:
    return frozenset(first_name_counts())


@lru_cache(maxsize=1)
def common_surnames() -> dict[str, bool]:
    """Return the 5,000 most common census surnames; True where mostly a surname.

    Examples
    --------
    >>> s = common_surnames()
    >>> s["smith"], s["russell"], "jen" in s
    (True, False, False)
    """
    return {r[0]: r[1] == "1" for r in _read_table("surnames.txt")}


@lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """Return the bundled place names of two or more words (GeoNames, lower case).

    Hyphens and apostrophes are spaces ("Stratford-upon-Avon" is ``stratford upon avon``).

    Examples
    --------
    >>> p = place_names()
    >>> "leighton buzzard" in p, "des plaines" in p, "mary lee" in p
    (True, True, False)
    """
    return frozenset(r[0] for r in _read_table("places.txt"))


@lru_cache(maxsize=1)
def _place_prefixes() -> frozenset[tuple[str, ...]]:
    """Every proper prefix of a bundled place name, as a word tuple (for a longest match)."""
    out = set()
    for name in place_names():
        words = tuple(name.split())
        out.update(words[:k] for k in range(1, len(words)))
    return frozenset(out)


#: Words before a lone name that introduce a person ("his wife Jennifer", "their sons,
#: Taylor and Cameron", "a friend named Ann"): strong evidence of a first name.
KIN = _words(
    "wife husband spouse partner fiance fiancee fiancé fiancée son sons daughter daughters "
    "child children kids kid boys girls boy girl twins brother brothers sister sisters "
    "mother father mom dad mum stepson stepdaughter grandson granddaughter grandchildren "
    "nephew niece cousin friend friends named nicknamed")
#: Words before a capitalised word that make it a common noun or a title, never a first name
#: ("a Summer of Love", "her Oscar", "this Christmas").
DETERMINERS = _words("a an this that these those every each our their its his her my your "
                     "another any some no")
#: Verbs after which "to" leads to a place ("moved to Leighton Buzzard").
MOVE_VERBS = _words(
    "move moves moved moving relocate relocates relocated relocating return returns "
    "returned returning travel travels traveled travelled traveling travelling go goes went "
    "gone come comes came emigrate emigrated immigrate immigrated transfer transferred "
    "commute commutes commuted trip trips journey journeyed back headed")
#: Lower-case words right after a lone name that make it the subject of a verb.
_VERB_NEXT = _words(
    "is was has had have will would can could may might must shall should does did do "
    "also currently now recently then still often always never has been later soon first "
    "previously once again truly really joined")

_SEPARATORS = (", ", ", and ", " and ", ", or ", " or ", " & ")
_US_STATE_CODES = _words(
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC")
_AFTER_COMMA = re.compile(r",\s*([A-Z][A-Za-z]*)\b")


def _place_follows(after: str, lone: bool) -> bool:
    """A comma and a state, a country or a large city after a run make it a town.

    ("Aylesbury, England", "Miami, Florida"; for a lone word also a state code: "Boone,
    NC", but "Dr. Ann Lee, MD" keeps her name.)
    """
    m = _AFTER_COMMA.match(after)
    if not m:
        return False
    word = m.group(1)
    if word.isupper():
        return lone and word in _US_STATE_CODES
    return word.lower() in PLACES
#: Cue words that are also surnames: "Lauryn Hill" is a person, "Chapel Hill" a place.
_SURNAME_CUES = _words("hill hall park lane wood woods street banks ford field fields")

#: A lone first name (no surname, no title) must have been seen this often in the list's
#: sources: rarer entries are mostly words and places ("Vigo", "Ajax").
MIN_COUNT_ALONE = 300


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and not (word.isupper() and len(word) > 1)


def _fold(word: str) -> str:
    """Lower case without accents ("Grégory" -> "gregory")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                   if not unicodedata.combining(c))


class NameListDetector:
    """First names from a word list, read in context (the default detector).

    Parameters
    ----------
    names : iterable of str, optional
        First names (any case); the bundled list by default (see :func:`first_names`).
    context : bool
        Apply the context rules of the module docstring (places, organisations, titles,
        surnames).  ``False``: every capitalised word of the list is a first name (the
        plain list look-up, for comparison).

    Examples
    --------
    >>> d = NameListDetector()
    >>> d.names_in("Dr. Andy Grant met Mary Lee in January at Florida Atlantic University.")
    ['Andy', 'Mary']
    >>> d.spans("Lucy joined.")
    [(0, 4)]
    """

    def __init__(self, names=None, *, context: bool = True) -> None:
        if names is None:
            self.counts = first_name_counts()
        else:
            if isinstance(names, str) or not all(isinstance(n, str) for n in names):
                raise FairboundError("names must be a set of strings", param="names")
            self.counts = {_fold(n): MIN_COUNT_ALONE for n in names}
        self.names = frozenset(self.counts)
        self.context = bool(context)

    def __repr__(self) -> str:
        return f"NameListDetector({len(self.names):,} names, context={self.context})"

    def names_in(self, text: str) -> list[str]:
        """The words :meth:`spans` marks, in order (for reading and tests)."""
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the first names in ``text``."""
        skip = [m.span() for m in _SKIP_SPAN.finditer(text)]
        toks = [m for m in _WORD.finditer(text)
                if not any(s <= m.start() < e for s, e in skip)]
        if not self.context:
            return [m.span() for m in toks
                    if _is_cap(m.group()) and _fold(m.group()) in self.names
                    and _fold(m.group()) not in TITLES]
        runs = list(_runs(text, toks))
        index = {m.start(): n for n, m in enumerate(toks)}
        # document-level evidence: words seen as a first name before a surname
        full = set()
        for r in runs:
            low = [_fold(m.group()) for m in r[0]]
            while len(low) > 1 and low[0] in TITLES:
                low = low[1:]
            if len(low) > 1 and not self._place_run(r[0], text):
                full.add(low[0])
        out: list[tuple[int, int]] = []
        strong: set[int] = set()  # runs whose name has strong evidence (kin, coordination)
        listed = self._lists_without_people(runs, text)
        learned = self._learn(runs, text, listed)
        full |= learned
        for k, (run, before, after, start) in enumerate(runs):
            if k in listed or self._listed(runs, k, text) or self._place_run(run, text):
                continue
            n = index[run[0].start()]
            prev = toks[n - 1].group().lower() if n > 0 else ""
            gap = text[toks[n - 1].end():run[0].start()] if n > 0 else ""
            prev2 = toks[n - 2].group().lower() if n > 1 else ""
            if prev in DETERMINERS and gap == " " and len(run) == 1:
                continue  # "a Summer of Love", "her Oscar" (but "a Stevie Wonder album")
            if prev == "to" and gap == " " and prev2 in MOVE_VERBS:
                continue  # "moved to Leighton Buzzard"
            if _place_follows(text[run[-1].end():run[-1].end() + 40], len(run) == 1):
                continue  # "Aylesbury, England", "Boone, NC"
            kin = prev in KIN and gap.strip(" ,:") == ""
            if not kin and k > 0 and k - 1 in strong and gap in (" ", ", ") \
                    and prev in ("and", "or"):
                kin = True  # "their sons, Taylor and Cameron"
            found = self._run_names(run, before, after, text, full, start, kin=kin,
                                    learned=learned)
            if found and kin:
                strong.add(k)
            out.extend(found)
        return out

    def _learn(self, runs, text: str, listed: set) -> frozenset[str]:
        """First names of this text that the list lacks, read from their surnames.

        A capitalised word (not a known word, place or organisation) followed by exactly
        one word that is mostly a surname in the census ("Lyor Cohen", "Paten Locke"), or
        after an honorific with a surname ("Dr. Wasiq Rafeeq").  The word then counts as a
        first name everywhere in the text ("Paten joined a group").
        """
        out = set()
        surnames = common_surnames()
        for k, (run, before, _after, _start) in enumerate(runs):
            words = [m.group() for m in run]
            low = [_fold(w) for w in words]
            i = 0
            while i < len(low) and low[i] in TITLES:
                i += 1
            honorific = i > 0 and low[i - 1] in HONORIFICS
            if len(low) - i != 2 or k in listed or before in PLACE_PREPOSITIONS \
                    or before in DETERMINERS:
                continue
            first, last = low[i], low[i + 1]
            if first in self.names or not words[i][1:].islower() or len(first) < 3 \
                    or first in _NOT_FIRST or first in ORG_CUES or first in PLACE_PREFIXES \
                    or first in surnames or last in ORG_CUES or last in _SUFFIXES \
                    or not words[i + 1][1:].islower() or self._place_run(run[i:], text):
                continue
            if honorific or (surnames.get(last) and (
                    self._subject_elsewhere(first, runs, text)
                    or self._beside_person(runs, k, text))):
                out.add(first)
        return frozenset(out)

    def _subject_elsewhere(self, word: str, runs, text: str) -> bool:
        """Whether ``word`` also stands alone as the subject of a verb ("Paten joined")."""
        for run, *_ in runs:
            if len(run) == 1 and _fold(run[0].group()) == word:
                m = re.match(r" ([a-z]+)\b", text[run[0].end():run[0].end() + 30])
                if m and (m.group(1) in _VERB_NEXT or m.group(1).endswith(("ed", "es"))):
                    return True
        return False

    def _beside_person(self, runs, k: int, text: str) -> bool:
        """Whether run ``k`` is listed beside a first name and a surname ("Lyor Cohen")."""
        for o in (k - 1, k + 1):
            if not 0 <= o < len(runs):
                continue
            a, b = (runs[o][0], runs[k][0]) if o < k else (runs[k][0], runs[o][0])
            other = [_fold(m.group()) for m in runs[o][0]]
            if text[a[-1].end():b[0].start()] in _SEPARATORS and len(other) == 2 \
                    and other[0] in self.names and other[0] not in _NOT_FIRST \
                    and not self._no_person(runs[o][0]):
                return True
        return False

    def _place_run(self, run, text: str) -> bool:
        """Whether the run starts with a bundled place name of two or more words."""
        words = []
        for m in run:
            words.append(_fold(m.group()))
            key = tuple(words)
            if len(key) > 1 and " ".join(key) in place_names():
                return True
            if key not in _place_prefixes():
                return False
        return False

    def _is_name_run(self, run) -> bool:
        w = run[0].group()
        return len(w) == 1 or _fold(w) in self.names or _fold(w) in TITLES

    def _no_person(self, run) -> bool:
        """A run that names no person: a lone unknown word, a place or an organisation."""
        low = [_fold(m.group()) for m in run]
        if len(low) == 2 and low[1] in _SURNAME_CUES and low[0] in self.names \
                and low[0] not in _NOT_FIRST:
            return False  # "Lauryn Hill"
        if any(w in ORG_CUES for w in low[1:]) or low[0] in PLACE_PREFIXES:
            return True
        return len(run) == 1 and (low[0] not in self.names or low[0] in _NOT_FIRST)

    def _lists_without_people(self, runs, text: str) -> set[int]:
        """The runs of lists that hold an item naming no person.

        A list is runs joined by commas with "and", "or" or "&" before the last ("Diesel,
        Jean Paul Gaultier and Versace", "Homeo and Juliet"), or three or more runs joined
        by commas and closed by punctuation ("City Hall, Becool, Macarena, ...").  Lists
        are of one kind: one item that is a place, an organisation or an unknown word makes
        every item a title, a brand or a place ("Born in Miami, Florida, Mariajose is ..."
        is no list: the last item starts a clause).
        """
        out: set[int] = set()
        k = 0
        while k < len(runs):
            chain, seps = [k], []
            while chain[-1] + 1 < len(runs):
                a, b = runs[chain[-1]][0], runs[chain[-1] + 1][0]
                sep = text[a[-1].end():b[0].start()]
                if sep not in _SEPARATORS:
                    break
                chain.append(chain[-1] + 1)
                seps.append(sep)
            k = chain[-1] + 1
            if len(chain) < 2:
                continue
            if not any(w in sep for sep in seps for w in ("and", "or", "&")):
                end = text[runs[chain[-1]][0][-1].end():][:1]
                if end not in ("", ".", ",", ";", ":", ")", "!", "?"):
                    chain = chain[:-1]
                if len(chain) < 3:
                    continue
            if any(self._no_person(runs[c][0]) or self._place_run(runs[c][0], text)
                   for c in chain):
                out.update(chain)
        return out

    def _listed(self, runs, k: int, text: str) -> bool:
        """Whether run ``k`` is an item of a list of brands, places or titles.

        That is: followed by an item that names no person ("Jean Paul Gaultier and
        Versace"), or inside a list opened by an organisation ("American Book Review,
        Meridian, Passages North").
        """
        run = runs[k][0]
        if k + 1 >= len(runs):
            return False
        other = runs[k + 1][0]
        if text[run[-1].end():other[0].start()] not in _SEPARATORS:
            return False
        if self._no_person(other):
            return True
        # in the middle of a list that an organisation opens ("Review, Meridian, Passages")
        if k == 0:
            return False
        left = runs[k - 1][0]
        low = [_fold(m.group()) for m in left]
        return text[left[-1].end():run[0].start()] in _SEPARATORS \
            and any(w in ORG_CUES for w in low)

    # -- one run of capitalised words ---------------------------------------------------
    def _run_names(self, run: list, before: str, after: str, text: str,
                   full: set, sentence_start: bool, *, kin: bool = False,
                   learned: frozenset = frozenset()) -> list[tuple[int, int]]:
        words = [m.group() for m in run]
        low = [_fold(w) for w in words]
        i = 0
        if low[0] == "the" and len(low) > 1 and low[1] in TITLES:
            i = 1
        titled = honorific = False
        while i < len(low) and low[i] in TITLES:
            titled, i = True, i + 1
            honorific = low[i - 1] in HONORIFICS
        while i + 1 < len(low) and len(low[i]) == 1:  # "W. Brad Groom", "M. Night"
            i += 1
        if i >= len(low):
            return []
        if "&" in before or after.lstrip().startswith("&"):
            return []  # "Goodwin Chivas & Co", "DuMond & Doran"
        first = low[i]
        # the words of the first name: the first word and those hyphenated to it
        j = i + 1
        while j < len(run) and text[run[j - 1].end():run[j].start()] == "-" \
                and low[j] in self.names:
            j += 1
        rest = [w for w in low[j:] if w not in _SUFFIXES]  # "Mr. Smith Jr."
        # "Ivano-Frankivsk": a hyphenated compound is one word, not a name and a surname
        compound = bool(rest) and text[run[j - 1].end():run[j].start()] == "-"
        surname_follows = bool(rest) and not compound
        cues = [w for w in rest if w in ORG_CUES]
        # "Lauryn Hill", "Sarah Hall": a cue that is also a surname ends a person's name
        if cues and not (rest == cues[:1] and cues[0] in _SURNAME_CUES
                         and first in self.names and first not in _NOT_FIRST):
            return []
        if first in PLACE_PREFIXES or first in ORG_CUES:
            return []
        if not titled and (before == "the" or (before in PLACE_PREPOSITIONS
                                                and not surname_follows)):
            return []
        if first in MONTHS or first in WEEKDAYS:
            return []
        if first not in self.names and first not in learned:
            # "Dr. Wasiq Rafeeq": an honorific, a word and a surname; the word is a first
            # name though the list lacks it
            if not (honorific and len(rest) == 1 and rest[0] not in _SUFFIXES
                    and first not in _NOT_FIRST and first not in ORG_CUES
                    and len(first) > 1 and words[i][1:].islower()
                    and not common_surnames().get(first)):
                return []
        if first in _PLACE_NAMES:
            if not surname_follows:
                return []
        elif first in _NOT_FIRST:
            return []
        if first in AMBIGUOUS and not surname_follows and sentence_start:
            return []  # "Will you ...", "Grace is ...": only a name mid-sentence
        if len(first) < 3 and not surname_follows:
            return []  # "Pa.", "Al": an abbreviation more often than a name
        if not surname_follows:
            if re.match(r",\s*[A-Z]{2}\b", after):
                return []  # "Boone, NC": a town and its state
            if titled:
                if first in common_surnames():
                    return []  # "Dr. Russell"
            elif first not in full and not kin:
                if common_surnames().get(first) \
                        or self.counts.get(first, 0) < MIN_COUNT_ALONE:
                    return []  # "Barnes has taught", "Vigo"
        return [run[k].span() for k in range(i, j) if _is_cap(words[k])]


_PARTICLES = _words("de del della da di do dos das du van von der den la le")


def _runs(text: str, toks: list):
    """Runs of capitalised words, with the text just before and after each run.

    A run's first word drops out when it only starts the sentence ("Call Sandra J Wilmot",
    "Follow Kate"): then the dropped word is what comes before the run.
    """
    i = 0
    n = len(toks)
    while i < n:
        m = toks[i]
        if not _is_cap(m.group()):
            i += 1
            continue
        prev_gap = text[toks[i - 1].end():m.start()] if i > 0 else ""
        # "D'Adamo", "Coeur d'Alene", "O'Brien": a surname or a place, never a first name
        particle = i > 0 and prev_gap in ("'", "\u2019") and len(toks[i - 1].group()) == 1
        # "Don't": a contraction
        contraction = (i + 1 < n and text[m.end():toks[i + 1].start()] in ("'", "\u2019")
                       and toks[i + 1].group().lower() in ("t", "ll", "ve", "re", "d", "m"))
        run = [m]
        j = i + 1
        while j < n:
            gap = text[toks[j - 1].end():toks[j].start()]
            w = toks[j].group()
            prev = toks[j - 1].group()
            # a particle inside a name: "Jaime de Angulo", "Isla de Encanta"
            if gap == " " and w in _PARTICLES and j + 1 < n \
                    and text[toks[j].end():toks[j + 1].start()] == " " \
                    and _is_cap(toks[j + 1].group()):
                run.extend(toks[j:j + 2])
                j += 2
                continue
            if gap in (" ", "-") or (gap in (". ", ".") and (len(prev) == 1
                                                            or _fold(prev) in TITLES)):
                if not _is_cap(w):
                    break
                run.append(toks[j])
                j += 1
                continue
            # a possessive bridges two capitalised words: "Rebecca's Tent Women's Shelter"
            if gap in ("'", "\u2019") and w == "s" and j + 1 < n \
                    and text[toks[j].end():toks[j + 1].start()] == " " \
                    and _is_cap(toks[j + 1].group()):
                run.append(toks[j + 1])
                j += 2
                continue
            break
        before = ""
        if i > 0 and prev_gap.strip() in ("", "&"):
            before = toks[i - 1].group().lower() if prev_gap == " " else prev_gap.strip()
        after = text[run[-1].end():run[-1].end() + 6]
        sentence_start = i == 0 or bool(_SENTENCE_END.search(text[:m.start()]))
        full_run = run
        if sentence_start and len(run) > 1 and _fold(m.group()) not in TITLES \
                and (_fold(m.group()) in _NEVER or _fold(m.group()) not in first_names()):
            before, run = _fold(m.group()), run[1:]
        # a title in quotes ("'Ken Heehaw'", "\u201cChanel\u201d") or a compound
        # ("Champaign/Urbana")
        quoted = prev_gap[-1:] in ("'", '"', "\u2018", "\u201c", "/")
        if not (particle or contraction or quoted):
            yield run, before, after, sentence_start and len(run) == len(full_run)
        i = j


class SpacyNameDetector:
    """First names from the PERSON entities of an installed spaCy model (optional extra).

    Parameters
    ----------
    model : str
        The name of an installed spaCy pipeline (``en_core_web_sm``, ...).  It is loaded
        once, from disk; nothing is downloaded.

    Raises
    ------
    FairboundError
        When spaCy or the model is not installed.

    Examples
    --------
    >>> SpacyNameDetector("en_core_web_sm").names_in("Mary Lee lives in Paris.")  # doctest: +SKIP
    ['Mary']
    """

    def __init__(self, model: str = "en_core_web_sm") -> None:
        try:
            import spacy
        except ImportError:
            raise FairboundError("detector: the spaCy detector needs spaCy and an installed "
                                 "model (pip install spacy, then the model's package); use "
                                 "the default list detector otherwise",
                                 param="detector") from None
        try:
            self.nlp = spacy.load(model)
        except OSError:
            raise FairboundError(f"model: no installed spaCy model {model!r}; install its "
                                 "package (models are never downloaded at run time)",
                                 param="model") from None
        self.model = model

    def names_in(self, text: str) -> list[str]:
        """The words :meth:`spans` marks, in order."""
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The first word of each PERSON entity (after any title)."""
        out = []
        for ent in self.nlp(text).ents:
            if ent.label_ != "PERSON":
                continue
            toks = [t for t in ent if t.is_alpha and t.text.lower() not in TITLES]
            if len(toks) >= 2 or (toks and toks[0].text.lower() not in common_surnames()):
                t = toks[0]
                out.append((t.idx, t.idx + len(t.text)))
        return out


def get_detector(detector) -> NameDetector:
    """Resolve a detector: ``None`` or ``'list'`` (the default), ``'spacy'``, or an object.

    Examples
    --------
    >>> get_detector(None)
    NameListDetector(37,589 names, context=True)
    """
    if detector is None or detector == "list":
        return NameListDetector()
    if detector == "spacy":
        return SpacyNameDetector()
    if isinstance(detector, NameDetector):
        return detector
    raise FairboundError(f"detector must be 'list', 'spacy' or an object with a "
                         f"spans(text) method; got {detector!r:.60}", param="detector")


__all__ = ["NameDetector", "NameListDetector", "SpacyNameDetector", "common_surnames",
           "first_name_counts", "first_names", "get_detector", "place_names"]
