// PLACEHOLDER: the DP's preprocessing (DESIGN §4) lands here.
