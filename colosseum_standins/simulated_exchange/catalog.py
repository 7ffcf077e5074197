"""Vocabulary for the simulated board: leagues, teams, people, places, companies and rule texts.

Everything here is static data. The generator picks from these lists with seeded RNGs, so the
board's wording is varied yet reproducible. Names of real teams, companies and offices are used
because the client code under test must cope with the same strings it meets on the real exchange
(apostrophes, accents, periods, parentheses); the questions themselves are synthetic.
"""

from __future__ import annotations

from typing import Final

IMG: Final = "https://polymarket-upload.s3.us-east-2.amazonaws.com/"

# (slug, display name, sport name, duration of a game in hours, endDate offset after start in hours,
#  resolution source, tag label, typical UTC start hours, relative weight)
LEAGUES: Final[tuple[tuple[str, str, str, float, float, str, str, tuple[int, ...], float], ...]] = (
    ("nba", "NBA", "Basketball", 2.5, 7.0, "https://www.nba.com/", "NBA", (23, 0, 1, 2, 3), 1.2),
    ("nfl", "NFL", "Football", 3.25, 8.0, "https://www.nfl.com/", "NFL", (17, 20, 0, 1), 0.6),
    ("mlb", "MLB", "Baseball", 3.0, 168.0, "https://www.mlb.com/", "MLB", (17, 20, 23, 0, 1, 2), 1.2),
    ("nhl", "NHL", "Hockey", 2.5, 7.0, "https://www.nhl.com/", "NHL", (23, 0, 1, 2), 0.9),
    (
        "epl",
        "Premier League",
        "Soccer",
        2.0,
        6.0,
        "https://www.premierleague.com/",
        "EPL",
        (12, 14, 16, 19),
        1.0,
    ),
    ("lal", "La Liga", "Soccer", 2.0, 6.0, "https://www.laliga.com/", "La Liga", (13, 16, 19, 20), 0.8),
    ("sea", "Serie A", "Soccer", 2.0, 6.0, "https://www.legaseriea.it/", "Serie A", (12, 15, 18, 19), 0.7),
    (
        "bun",
        "Bundesliga",
        "Soccer",
        2.0,
        6.0,
        "https://www.bundesliga.com/",
        "Bundesliga",
        (13, 14, 16, 18),
        0.6,
    ),
    ("mls", "MLS", "Soccer", 2.0, 6.0, "https://www.mlssoccer.com/", "MLS", (0, 1, 2, 23), 0.5),
    ("atp", "ATP", "Tennis", 2.5, 8.0, "https://www.atptour.com/", "Tennis", (9, 11, 13, 15, 17, 19), 0.9),
    (
        "cs2",
        "Counter-Strike",
        "Esports",
        2.5,
        6.0,
        "https://hltv.org",
        "Counter Strike",
        (10, 13, 15, 17, 19),
        0.8,
    ),
    (
        "lol",
        "League of Legends",
        "Esports",
        2.0,
        5.0,
        "https://lolesports.com/",
        "League of Legends",
        (8, 10, 17),
        0.5,
    ),
    ("val", "Valorant", "Esports", 2.0, 5.0, "https://www.vlr.gg/", "Valorant", (11, 15, 19), 0.4),
    ("ufc", "UFC", "MMA", 0.5, 6.0, "https://www.ufc.com/", "UFC", (1, 2, 3, 22), 0.4),
    ("mlp", "MLP", "Pickleball", 2.0, 168.0, "https://majorleaguepickleball.co/", "MLP", (17, 19, 21), 0.3),
)

SOCCER: Final = frozenset({"epl", "lal", "sea", "bun", "mls"})
ESPORTS: Final = frozenset({"cs2", "lol", "val"})
INDIVIDUAL: Final = frozenset({"atp", "ufc"})

TEAMS: Final[dict[str, tuple[str, ...]]] = {
    "nba": (
        "Boston Celtics",
        "New York Knicks",
        "Milwaukee Bucks",
        "Cleveland Cavaliers",
        "Philadelphia 76ers",
        "Miami Heat",
        "Denver Nuggets",
        "Oklahoma City Thunder",
        "Minnesota Timberwolves",
        "Los Angeles Lakers",
        "Golden State Warriors",
        "Phoenix Suns",
        "Dallas Mavericks",
        "Sacramento Kings",
        "Houston Rockets",
        "Orlando Magic",
        "Indiana Pacers",
        "Memphis Grizzlies",
    ),
    "nfl": (
        "Kansas City Chiefs",
        "Buffalo Bills",
        "Baltimore Ravens",
        "Philadelphia Eagles",
        "Detroit Lions",
        "San Francisco 49ers",
        "Green Bay Packers",
        "Dallas Cowboys",
        "Cincinnati Bengals",
        "Los Angeles Rams",
        "Miami Dolphins",
        "Houston Texans",
        "Pittsburgh Steelers",
        "Minnesota Vikings",
    ),
    "mlb": (
        "Milwaukee Brewers",
        "San Diego Padres",
        "New York Yankees",
        "Tampa Bay Rays",
        "Los Angeles Dodgers",
        "Atlanta Braves",
        "Houston Astros",
        "Philadelphia Phillies",
        "Seattle Mariners",
        "Chicago Cubs",
        "Boston Red Sox",
        "Toronto Blue Jays",
        "Cleveland Guardians",
        "St. Louis Cardinals",
        "Baltimore Orioles",
        "Texas Rangers",
        "Arizona Diamondbacks",
        "New York Mets",
    ),
    "nhl": (
        "Edmonton Oilers",
        "Florida Panthers",
        "Colorado Avalanche",
        "Dallas Stars",
        "New York Rangers",
        "Toronto Maple Leafs",
        "Vegas Golden Knights",
        "Carolina Hurricanes",
        "Boston Bruins",
        "Winnipeg Jets",
        "Tampa Bay Lightning",
        "Vancouver Canucks",
        "Montréal Canadiens",
    ),
    "epl": (
        "Arsenal",
        "Liverpool",
        "Manchester City",
        "Chelsea",
        "Tottenham Hotspur",
        "Newcastle United",
        "Aston Villa",
        "Manchester United",
        "Brighton & Hove Albion",
        "West Ham United",
        "Nottingham Forest",
        "Brentford",
        "Fulham",
        "Crystal Palace",
        "AFC Bournemouth",
        "Everton",
    ),
    "lal": (
        "Real Madrid",
        "FC Barcelona",
        "Atlético Madrid",
        "Athletic Club",
        "Real Sociedad",
        "Villarreal",
        "Real Betis",
        "Sevilla",
        "Valencia",
        "Girona",
        "Celta Vigo",
        "Osasuna",
    ),
    "sea": (
        "Inter",
        "AC Milan",
        "Juventus",
        "Napoli",
        "Atalanta",
        "AS Roma",
        "Lazio",
        "Fiorentina",
        "Bologna",
        "Torino",
    ),
    "bun": (
        "Bayern München",
        "Bayer Leverkusen",
        "Borussia Dortmund",
        "RB Leipzig",
        "VfB Stuttgart",
        "Eintracht Frankfurt",
        "SC Freiburg",
        "1. FC Union Berlin",
        "VfL Wolfsburg",
        "Werder Bremen",
    ),
    "mls": (
        "Inter Miami CF",
        "LA Galaxy",
        "Columbus Crew",
        "FC Cincinnati",
        "Seattle Sounders FC",
        "Los Angeles FC",
        "Philadelphia Union",
        "New York Red Bulls",
        "Atlanta United",
        "Austin FC",
    ),
    "cs2": (
        "FaZe",
        "Natus Vincere",
        "Team Vitality",
        "G2",
        "MOUZ",
        "Team Spirit",
        "FURIA",
        "Astralis",
        "Heroic",
        "The MongolZ",
        "Eternal Fire",
        "illwill",
        "BIG",
        "paiN",
        "Complexity",
        "3DMAX",
    ),
    "lol": (
        "T1",
        "Gen.G",
        "Hanwha Life Esports",
        "G2 Esports",
        "Fnatic",
        "Team Liquid",
        "Cloud9",
        "BLG",
        "JDG",
    ),
    # No organisation twice across leagues: a team's name is the team, board-wide.
    "val": (
        "Sentinels",
        "Leviatán",
        "Paper Rex",
        "LOUD",
        "Team Heretics",
        "NRG",
        "EDward Gaming",
        "DRX",
    ),
    "mlp": (
        "St. Louis Shock",
        "Texas Ranchers",
        "Dallas Flash",
        "Columbus Sliders",
        "Miami Pickleball Club",
        "Orlando Squeeze",
        "New Jersey 5s",
        "Carolina Hogs",
        "Brooklyn Aces",
        "California Black Bears",
    ),
}

FIRST_NAMES: Final = (
    "James",
    "Maria",
    "Alexander",
    "Sofia",
    "Daniel",
    "Elena",
    "Lukas",
    "Camila",
    "Noah",
    "Aisha",
    "Mateo",
    "Hannah",
    "Rafael",
    "Yuki",
    "Oliver",
    "Chloé",
    "Marco",
    "Ingrid",
    "Tomás",
    "Priya",
    "Jonas",
    "Zoe",
    "Gabriel",
    "Amara",
    "Viktor",
    "Isabel",
    "Kenji",
    "Leila",
    "Andrés",
    "Fatima",
    "Stefan",
    "Nadia",
    "Ethan",
    "Olga",
    "Samuel",
    "Mei",
    "Hugo",
    "Grace",
    "Pablo",
    "Anika",
    "Dmitri",
    "Beatriz",
    "Cole",
    "Josh",
    "Gavin",
    "Wes",
    "Ro",
    "Pete",
    "Gretchen",
    "Andy",
    "Cory",
    "Raphael",
    "Jon",
    "Kamala",
    "Chris",
)
LAST_NAMES: Final = (
    "Smith",
    "García",
    "Müller",
    "Rossi",
    "Nakamura",
    "Kowalski",
    "Okafor",
    "Dubois",
    "Silva",
    "Jensen",
    "Petrov",
    "Haddad",
    "O'Brien",
    "Van der Berg",
    "Moreau",
    "Andersson",
    "Fernández",
    "Novak",
    "Ibrahim",
    "Lindqvist",
    "Costa",
    "Yamamoto",
    "Schneider",
    "Walsh",
    "Kaur",
    "Mendes",
    "Horvat",
    "Bianchi",
    "Nguyen",
    "Álvarez",
    "Fischer",
    "Brennan",
    "Castillo",
    "Sato",
    "Romero",
    "Kim",
    "Delgado",
    "Hughes",
    "Newsom",
    "Shapiro",
    "Whitmer",
    "Beshear",
    "Buttigieg",
    "Ossoff",
    "Moore",
    "Pritzker",
    "Booker",
    "Warnock",
    "Polis",
    "Murphy",
    "Khanna",
    "Fetterman",
    "Harris",
    "Ocasio-Cortez",
    "Youngkin",
    "DeSantis",
)

COUNTRIES: Final = (
    ("Brazil", "Brazilian"),
    ("France", "French"),
    ("Germany", "German"),
    ("Japan", "Japanese"),
    ("South Korea", "South Korean"),
    ("Colombia", "Colombian"),
    ("Chile", "Chilean"),
    ("Peru", "Peruvian"),
    ("Poland", "Polish"),
    ("Portugal", "Portuguese"),
    ("Romania", "Romanian"),
    ("Hungary", "Hungarian"),
    ("Czech Republic", "Czech"),
    ("Netherlands", "Dutch"),
    ("Philippines", "Philippine"),
    ("Kenya", "Kenyan"),
    ("Ethiopia", "Ethiopian"),
    ("Canada", "Canadian"),
    ("Australia", "Australian"),
    ("Israel", "Israeli"),
    ("Argentina", "Argentine"),
    ("Mexico", "Mexican"),
    ("Norway", "Norwegian"),
)
US_STATES: Final = (
    "Georgia",
    "Arizona",
    "Michigan",
    "Pennsylvania",
    "Wisconsin",
    "Nevada",
    "North Carolina",
    "Ohio",
    "Texas",
    "Florida",
    "Maine",
    "New Hampshire",
    "Virginia",
    "Iowa",
    "Minnesota",
    "Colorado",
)
CITIES_WEATHER: Final = (
    ("NYC", "New York City", "KLGA", "us/ny/new-york-city"),
    ("Chicago", "Chicago", "KORD", "us/il/chicago"),
    ("Miami", "Miami", "KMIA", "us/fl/miami"),
    ("Dallas", "Dallas", "KDAL", "us/tx/dallas"),
    ("Seattle", "Seattle", "KSEA", "us/wa/seatac"),
    ("Atlanta", "Atlanta", "KATL", "us/ga/atlanta"),
    ("London", "London", "EGLC", "gb/london"),
    ("Toronto", "Toronto", "CYYZ", "ca/mississauga"),
    ("Seoul", "Seoul", "RKSI", "kr/incheon"),
    ("Buenos Aires", "Buenos Aires", "SAEZ", "ar/ezeiza"),
)

# (name, ticker, coingecko-ish slug, typical price, daily relative volatility)
CRYPTO: Final = (
    ("Bitcoin", "BTC", "btc", 104000.0, 0.025),
    ("Ethereum", "ETH", "eth", 3900.0, 0.035),
    ("Solana", "SOL", "sol", 185.0, 0.045),
    ("XRP", "XRP", "xrp", 2.4, 0.045),
    ("Dogecoin", "DOGE", "doge", 0.21, 0.055),
    ("BNB", "BNB", "bnb", 690.0, 0.03),
    ("Hyperliquid", "HYPE", "hype", 38.0, 0.06),
    ("Cardano", "ADA", "ada", 0.78, 0.05),
    ("Chainlink", "LINK", "link", 19.0, 0.05),
    ("Avalanche", "AVAX", "avax", 31.0, 0.055),
    ("Litecoin", "LTC", "ltc", 98.0, 0.045),
    ("Sui", "SUI", "sui", 3.9, 0.06),
    ("Toncoin", "TON", "ton", 3.3, 0.05),
    ("Polkadot", "DOT", "dot", 4.6, 0.055),
)

STOCKS: Final = (
    ("NVIDIA", "NVDA", 182.0),
    ("Apple", "AAPL", 231.0),
    ("Tesla", "TSLA", 342.0),
    ("Microsoft", "MSFT", 505.0),
    ("Amazon", "AMZN", 224.0),
    ("Alphabet", "GOOGL", 201.0),
    ("Meta", "META", 742.0),
    ("Netflix", "NFLX", 1180.0),
    ("Palantir", "PLTR", 158.0),
    ("Coinbase", "COIN", 318.0),
    ("AMD", "AMD", 172.0),
    ("Broadcom", "AVGO", 305.0),
)

COMPANIES: Final = (
    "OpenAI",
    "Anthropic",
    "Apple",
    "Google",
    "Meta",
    "Microsoft",
    "Amazon",
    "Tesla",
    "SpaceX",
    "Nvidia",
    "xAI",
    "Stripe",
    "Kraken",
    "Discord",
    "Databricks",
    "Revolut",
    "Shein",
    "Telegram",
    "Netflix",
    "Disney",
    "Boeing",
    "Intel",
    "Samsung",
    "TikTok",
    "Reddit",
    "Epic Games",
    "Rivian",
    "Nintendo",
)
COMPANY_EVENTS: Final = (
    ("Will {c} announce a new CEO by {date}?", "{c} names a new chief executive officer"),
    ("Will {c} IPO by {date}?", "{c} completes an Initial Public Offering (IPO)"),
    ("Will {c} be acquired by {date}?", "a definitive agreement for the acquisition of {c} is announced"),
    (
        "Will {c} announce layoffs of 1,000+ employees by {date}?",
        "{c} announces layoffs affecting at least 1,000 employees",
    ),
    ("Will {c} release a new flagship model by {date}?", "{c} publicly releases a new flagship model"),
    (
        "Will {c} reach a $1T market cap by {date}?",
        "{c}'s market capitalization closes at or above $1 trillion",
    ),
    ("Will {c} announce a stock split by {date}?", "{c} officially announces a stock split"),
    (
        "Will {c} settle its antitrust case by {date}?",
        "{c} announces a settlement of its pending antitrust case",
    ),
)
AI_LABS: Final = (
    "Google",
    "OpenAI",
    "Anthropic",
    "xAI",
    "DeepSeek",
    "Meta",
    "Alibaba",
    "Mistral",
    "Moonshot",
)

GEO_EVENTS: Final = (
    (
        "Will {a} and {b} sign a ceasefire agreement by {date}?",
        "{a} and {b} sign an official ceasefire agreement",
    ),
    ("Will {a} hold a snap election by {date}?", "{a} officially calls a snap national election"),
    (
        "Will the {nat} prime minister leave office by {date}?",
        "the sitting prime minister of {a} ceases to hold office",
    ),
    ("Will {a} join the EU customs pact by {date}?", "{a} formally joins the customs arrangement"),
    (
        "Will {a} and {b} resume diplomatic relations by {date}?",
        "{a} and {b} officially restore diplomatic relations",
    ),
    (
        "Will {a} default on its sovereign debt by {date}?",
        "{a} misses a payment on its sovereign debt beyond the grace period",
    ),
)
MACRO_EVENTS: Final = (
    (
        "Will the US enter a recession by {date}?",
        "the NBER announces a recession beginning on or before the listed date",
    ),
    (
        "Will US gas prices hit $4.00 by {date}?",
        "the AAA national average for regular gasoline reaches $4.00",
    ),
    (
        "Will the 10-year Treasury yield close above 5% by {date}?",
        "the 10-year Treasury constant-maturity yield closes above 5.00%",
    ),
    ("Will gold close above $4,000 by {date}?", "the LBMA gold price PM closes above $4,000"),
    (
        "Will the US government shut down by {date}?",
        "a lapse in appropriations causes a federal government shutdown",
    ),
    ("Will the ECB cut rates by {date}?", "the European Central Bank lowers its deposit facility rate"),
)

MENTION_SPEAKERS: Final = (
    ("Trump", "Donald Trump", "press conference"),
    ("Powell", "Jerome Powell", "post-meeting press conference"),
    ("Leavitt", "Karoline Leavitt", "White House press briefing"),
    ("Musk", "Elon Musk", "livestream"),
    ("Vance", "JD Vance", "rally"),
    ("Newsom", "Gavin Newsom", "press conference"),
)
MENTION_WORDS: Final = (
    "tariff",
    "crypto",
    "China",
    "inflation",
    "Bitcoin",
    "border",
    "AI",
    "Ukraine",
    "recession",
    "Greenland",
    "Canada",
    "Fed",
    "rate cut",
    "Iran",
    "deal",
    "DOGE",
    "Taylor Swift",
    "beautiful",
    "fake news",
    "Epstein",
)
TWEETERS: Final = (
    ("Elon Musk", "elonmusk"),
    ("Donald Trump", "realDonaldTrump"),
    ("Andrew Tate", "Cobratate"),
)
MOVIES: Final = (
    "Avatar: Fire and Ash",
    "The Odyssey",
    "Spider-Man: Brand New Day",
    "Toy Story 5",
    "Dune: Part Three",
    "The Mandalorian & Grogu",
    "Shrek 5",
    "Frozen III",
    "Minecraft 2",
    "The Batman Part II",
)

MONTHS: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

MARQUEE: Final = (
    (
        "Presidential Election Winner {y}",
        "Will {n} win the {y} US Presidential Election?",
        "U.S.",
        "Presidential",
    ),
    (
        "Democratic Presidential Nominee {y}",
        "Will {n} win the {y} Democratic presidential nomination?",
        "U.S.",
        "Democratic Nomination",
    ),
    (
        "Republican Presidential Nominee {y}",
        "Will {n} win the {y} Republican presidential nomination?",
        "U.S.",
        "Republican Nomination",
    ),
    ("Time Person of the Year {y}", "Will {n} be named TIME's Person of the Year for {y}?", "", ""),
    ("Next UK Prime Minister", "Will {n} be the next UK Prime Minister?", "U.K.", "Prime Minister"),
    ("Nobel Peace Prize Winner {y}", "Will {n} win the Nobel Peace Prize in {y}?", "", ""),
)

SPORT_RULES: Final = (
    "This market refers to the {league} game between the {a} and the {b}, scheduled for {when} ET.\n\n"
    'This market will resolve to "{a}" if the {a} win the game.\n\n'
    'This market will resolve to "{b}" if the {b} win the game.\n\n'
    "If the game is postponed, this market will remain open until the game has been completed. If "
    "the game is "
    "canceled entirely, with no make-up game, or ends in a tie, this market will resolve 50-50.\n\n"
    "The primary resolution source for this market is the official final statistics of the event as "
    "recognized "
    "by the governing body or event organizers. However, if the governing body or event organizers have not "
    "published final match statistics within 24 hours after the event's conclusion, a consensus of credible "
    "reporting may be used instead."
)
SOCCER_RULES: Final = (
    "In the upcoming {league} game, scheduled for {when} ET:\n\n"
    'This market will resolve to "Yes" if {subject}. Otherwise, this market will resolve to "No".\n\n'
    "If the game is postponed, this market will remain open until the game has been completed. If "
    "the game is "
    'canceled entirely, with no make-up game, this market will resolve "No".\n\n'
    "This market refers only to the outcome within the first 90 minutes of regular play plus "
    "stoppage time.\n\n"
    "The primary resolution source for this market is the official statistics of the event as "
    "recognized by the "
    "governing body or event organizers. However, if the governing body or event organizers have "
    "not published "
    "final match statistics within 2 hours after the event's conclusion, a consensus of credible "
    "reporting may "
    "be used instead."
)
LINE_RULES: Final = (
    "In the upcoming {league} game, scheduled for {when} ET:\n\n{body}\n\n"
    "If the game is postponed, this market will remain open until the game has been completed. If "
    "the game is "
    "canceled entirely, with no make-up game, this market will resolve 50-50.\n\n"
    "The primary resolution source for this market is the official final statistics of the event as "
    "recognized "
    "by the governing body or event organizers."
)
BY_DATE_RULES: Final = (
    'This market will resolve to "Yes" if {what} by {deadline}, 11:59 PM ET. Otherwise, this market will '
    'resolve to "No".\n\n{extra}The resolution source for this market will be {source}.'
)

# A board bigger than the real leagues can carry (every team plays at most once in four days) fills
# each league with clubs named from these: "{place} {nickname}" for the North American leagues and
# pickleball, a soccer form of a place, an esports form of a nickname. The places avoid the curated
# clubs' home cities and the nicknames their names, so a made-up club never shares a curated one's name.
PLACES: Final = (
    "Aberdeen", "Akron", "Albany", "Albuquerque", "Alicante", "Almería", "Amarillo", "Anchorage",
    "Ann Arbor", "Antwerp", "Asheville", "Augusta", "Bakersfield", "Bangor", "Bari", "Baton Rouge",
    "Bergen", "Billings", "Birmingham", "Boise", "Bordeaux", "Bozeman", "Brest", "Bristol",
    "Burlington", "Cádiz", "Cagliari", "Calgary", "Cardiff", "Cedar Rapids", "Charleston", "Chattanooga",
    "Cheyenne", "Coimbra", "Cork", "Corpus Christi", "Des Moines", "Dijon", "Dundee", "Durham",
    "El Paso", "Erie", "Eugene", "Evansville", "Fargo", "Flagstaff", "Fort Wayne", "Fresno",
    "Galway", "Genoa", "Ghent", "Graz", "Grenoble", "Halifax", "Hamilton", "Hartford",
    "Helena", "Honolulu", "Huntsville", "Innsbruck", "Inverness", "Jackson", "Juneau", "Knoxville",
    "Lansing", "Laredo", "Las Cruces", "Lecce", "Leeds", "Le Mans", "Lexington", "Lille",
    "Lincoln", "Linz", "Little Rock", "Lubbock", "Lyon", "Madison", "Málaga", "Malmö",
    "Marseille", "Mobile", "Modesto", "Montpellier", "Nantes", "Norfolk", "Odense", "Omaha",
    "Oporto", "Oviedo", "Palermo", "Pamplona", "Parma", "Peoria", "Perugia", "Portland",
    "Porto Alegre", "Providence", "Provo", "Quebec City", "Raleigh", "Reading", "Regina", "Reno",
    "Richmond", "Rochester", "Rockford", "Rouen", "Saginaw", "Salem", "Salzburg", "Santa Fe",
    "Saskatoon", "Savannah", "Sheffield", "Shreveport", "Sioux Falls", "Spokane", "Springfield", "Swansea",
    "Syracuse", "Tacoma", "Tallahassee", "Toledo", "Toulouse", "Tucson", "Tulsa", "Utrecht",
)  # fmt: skip
NICKNAMES: Final = (
    "Comets", "Otters", "Ironmen", "Stallions", "Herons", "Wolves", "Pilots", "Foxes",
    "Rustlers", "Monarchs", "Voyagers", "Lumberjacks", "Mustangs", "Condors", "Rivermen", "Badgers",
    "Blizzard", "Kestrels", "Express", "Flyers", "Generals", "Hornets", "Huskies", "Lynx",
    "Marlins", "Miners", "Nighthawks", "Ospreys", "Pumas", "Pioneers", "Quakes", "Raptors",
    "Redtails", "Roadrunners", "Sabres", "Sentries", "Sharks", "Skyhawks", "Sandpipers", "Spartans",
    "Storm", "Sundogs", "Thunderbirds", "Titans", "Tornadoes", "Trappers", "Vipers", "Wildcats",
    "Wranglers", "Yetis", "Zephyrs", "Armada", "Barons", "Bison", "Cyclones", "Dragons",
    "Eclipse", "Firebirds", "Gulls", "Harriers", "Jackals", "Kodiaks", "Legion", "Mammoths",
)  # fmt: skip
SOCCER_FORMS: Final = (
    "{} FC", "{} United", "{} City", "Sporting {}", "Real {}", "Atlético {}", "Dynamo {}", "{} Rovers",
    "{} Athletic", "Racing {}", "{} Wanderers", "Inter {}", "{} Albion", "Olympique {}", "{} Town", "SC {}",
)  # fmt: skip
ESPORTS_FORMS: Final = ("{} Esports", "Team {}", "{} Gaming", "{} Club", "{} GG", "{} Fire")
# Only a board too big for every first team brings on its second sides.
SIDES: Final = {
    "us": ("", " II", " Women", " Academy"),
    "soccer": ("", " II", " Women", " U21", " U19", " B"),
    "esports": ("", " Academy", " Female", " Youth"),
    "people": ("",),
}
# How a fixture is written when it is listed a second time: away side first, another joining word,
# capitals, the league's name in front. Real duplicate listings vary exactly this way.
FIXTURE_STYLES: Final = (
    "{away} @ {home}",
    "{away} vs {home}",
    "{home} v {away}",
    "{HOME} VS. {AWAY}",
    "{league}: {away} vs. {home}",
)
