// strategy=sqrt budget=1MiB
// A U-Net-shaped graph of linear layers: three levels down, three up, each
// up level adding the activation of its down level (a skip connection that
// stays alive across the levels betw ,rede)nopout at the bottom. With one
// activation per cut the forward is one stage from the first skip to its
// add; ilp and dp on s// sttage-crossings=3 cut it between every level.
func.func @ru